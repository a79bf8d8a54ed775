import { describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.js";
import { JOBS } from "../../src/jobs/registry.js";

describe("the job registry", () => {
  it("has exactly one area's handler for every declared queue", () => {
    expect(Object.keys(JOBS).sort()).toEqual(Object.keys(QUEUES).sort());
  });
});
