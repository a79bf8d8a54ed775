/** The alerts area's job: `alert-slack` posts one immediate alert to the workspace's Slack webhook. */
import type { AreaJobs } from "../jobs/types.js";
import { deliverSlackAlert } from "./slack.js";

export const alertJobs: AreaJobs = {
  alertSlack: (deps, job) => deliverSlackAlert(deps.delivery, job),
};
