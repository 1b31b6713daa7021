/**
 * The run directory every learning command writes: `RunDirectory` of `@autodidact/core/node` (moved there so that
 * apps other than the CLI, e.g. `apps/household-agent`, write the same directory), re-exported for the commands.
 * @since 0.1.0
 */
import { RunDirectory as Impl } from "@autodidact/core/node"

export const RunDirectoryError = Impl.RunDirectoryError
export type RunDirectoryError = Impl.RunDirectoryError
export const ResumeConfigError = Impl.ResumeConfigError
export type ResumeConfigError = Impl.ResumeConfigError
export const ConfigDifference = Impl.ConfigDifference
export type ConfigDifference = Impl.ConfigDifference
export type ResumeOptions = Impl.ResumeOptions
export type RunDirectory = Impl.RunDirectory
export type SystemProbe = Impl.SystemProbe
export const {
  clusterRunId,
  configDifferences,
  defaultSystemEverySeconds,
  open,
  processProbe,
  readConfig,
  relativeRow,
  summaryHead,
  systemSampler,
  truncateMetrics
} = Impl
