/**
 * Waiting for cluster runners (`train --cluster`): a trainer whose rollouts come from `autodidact runner` processes
 * gets nothing until one has registered, so the wait is said out loud, with the command that starts a runner, and
 * repeated every `remindEvery` seconds; with a timeout, a run that has received no episode after that many seconds
 * fails with {@link RunnerWaitTimeoutError} (exit 1) instead of waiting forever.
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"

/** No episode arrived from any cluster runner within `--timeout` seconds. */
export class RunnerWaitTimeoutError extends Schema.TaggedError<RunnerWaitTimeoutError>()("RunnerWaitTimeoutError", {
  cluster: Schema.String,
  seconds: Schema.Number
}) {
  override get message() {
    return `no runner sent an episode within --timeout ${this.seconds} s (cluster ${this.cluster}); start one with \`autodidact runner --cluster ${this.cluster}\``
  }
}

/** The line printed while no runner has sent an episode. */
export const waitingLine = (cluster: string, waitedSeconds: number): string =>
  `${waitedSeconds === 0 ? "waiting" : `still waiting after ${waitedSeconds} s`} for runners: start one with \`autodidact runner --cluster ${cluster}\``

/**
 * Run `train(arrived)` (which must call `arrived()` when the first episode comes in) while saying that it waits for
 * runners: a line at once and every `remindEvery` seconds until `arrived()`, then one line saying so. With
 * `timeoutSeconds`, fails with {@link RunnerWaitTimeoutError} (interrupting the trainer) if nothing arrived by then.
 * `cluster` is the URL shown to the user (password redacted).
 */
export const awaitingRunners = <A, E, R>(
  cluster: string,
  options: {
    readonly timeoutSeconds?: number | undefined
    readonly remindEvery?: number
    /** Where the lines go (default: stderr, with `--json` too: a wait is never silent). */
    readonly say?: (line: string) => void
  },
  train: (arrived: () => void) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | RunnerWaitTimeoutError, R> =>
  Effect.suspend(() => {
    const say = options.say ?? ((line: string) => void process.stderr.write(line + "\n"))
    const started = Date.now()
    let arrived = false
    const onArrival = () => {
      if (arrived) return
      arrived = true
      say(`first episode from a runner after ${((Date.now() - started) / 1000).toFixed(1)} s`)
    }
    const remindEvery = options.remindEvery ?? 30
    const reminders = Effect.gen(function* () {
      for (let waited = 0; !arrived; waited += remindEvery) {
        say(waitingLine(cluster, waited))
        yield* Effect.sleep(`${remindEvery} seconds`)
      }
      return yield* Effect.never
    })
    const timeout = options.timeoutSeconds
    const watchdog: Effect.Effect<never, RunnerWaitTimeoutError> = timeout === undefined
      ? reminders
      : Effect.raceFirst(
        reminders,
        Effect.sleep(`${timeout} seconds`).pipe(
          Effect.andThen(() => (arrived ? Effect.never : Effect.fail(new RunnerWaitTimeoutError({ cluster, seconds: timeout }))))
        )
      )
    return Effect.raceFirst(train(onArrival), watchdog)
  })
