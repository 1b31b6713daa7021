/**
 * `RecordEpisodeStatistics`: episode return, length and wall time in `info.episode` at each episode end (Gymnasium's
 * `RecordEpisodeStatistics`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import type { AnyEnv, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { Wrapper } from "./Wrapper.js"

/** Episode statistics that {@link RecordEpisodeStatistics} puts in `info.episode`. */
export interface EpisodeStatistics {
  /** Undiscounted return of the episode. */
  readonly r: number
  /** Number of steps. */
  readonly l: number
  /** Wall-clock seconds since the episode's reset (rounded to microseconds). */
  readonly t: number
}

/**
 * Adds `info.episode = { r, l, t }` to the step that ends an episode (terminated or truncated), and keeps the
 * last `bufferLength` returns, lengths and times in `returnQueue`, `lengthQueue`, `timeQueue` (oldest first).
 * @category wrappers
 */
export class RecordEpisodeStatistics<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  /** Return of the current episode so far. */
  episodeReturn = 0
  /** Steps of the current episode so far. */
  episodeLength = 0
  private startTime = 0
  /** Returns of the last `bufferLength` episodes, oldest first. */
  readonly returnQueue: Array<number> = []
  /** Lengths of the last `bufferLength` episodes, oldest first. */
  readonly lengthQueue: Array<number> = []
  /** Wall-clock seconds of the last `bufferLength` episodes, oldest first. */
  readonly timeQueue: Array<number> = []
  /** Episodes completed since construction. */
  episodeCount = 0
  /**
   * @param bufferLength episodes kept in the queues (default 100, Gymnasium's `buffer_length`).
   * @param statsKey the info key of the statistics (default `"episode"`, Gymnasium's `stats_key`).
   */
  constructor(env: AnyEnv, readonly bufferLength = 100, readonly statsKey = "episode") {
    super(env)
  }
  /** Reset the wrapped env and start the episode's counters and clock. */
  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    this.episodeReturn = 0
    this.episodeLength = 0
    this.startTime = performance.now()
    return r
  }
  /** Step the wrapped env; at an episode end add `info[statsKey] = { r, l, t }` (a new info object). */
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    this.episodeReturn += r.reward
    this.episodeLength++
    if (!r.terminated && !r.truncated) return r
    const t = Math.round((performance.now() - this.startTime) * 1000) / 1e6
    const episode: EpisodeStatistics = { r: this.episodeReturn, l: this.episodeLength, t }
    this.push(this.returnQueue, episode.r)
    this.push(this.lengthQueue, episode.l)
    this.push(this.timeQueue, t)
    this.episodeCount++
    return { ...r, info: { ...r.info, [this.statsKey]: episode } }
  }
  private push(q: Array<number>, v: number): void {
    q.push(v)
    if (q.length > this.bufferLength) q.shift()
  }
}
