/** The alerts area's job: `alert-slack` posts one immediate alert to the workspace's Slack webhook. */
import type { AreaJobs } from "../jobs/types.js";
import { SlackAlertDelivery } from "./slack.js";

export const alertJobs: AreaJobs = {
  alertSlack: (deps, job) => new SlackAlertDelivery(deps.delivery).send(job.data.delivery_id, job.id),
};
