/** TanStack Query over the generated SDK (openapi-react-query): typed hooks for every operation of the contract. */
import { QueryClient } from "@tanstack/react-query";
import createQueryHooks from "openapi-react-query";
import { client } from "./api.js";

export const $api = createQueryHooks(client);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // An answer of the API's error envelope (a 4xx) will not get better by asking again.
      retry: (count, error) => count < 1 && typeof (error as { detail?: unknown })?.detail === "undefined",
    },
  },
});
