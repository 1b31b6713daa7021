/**
 * Search: replace this sentence with what the module does, and cite the reference it follows (`@see`).
 *
 * **Details**
 * - {@link greet} is the plain API (a function that returns or throws); {@link greetEffect} is its Effect face
 *   (fails with a typed error instead of throwing).
 *
 * @example
 * ```ts
 * import { Search } from "@autodidact/search"
 * Search.greet("world") // "hello, world"
 * ```
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"

/**
 * A greeting for `who`.
 * @throws InvalidOptionError when `who` is empty, naming the value.
 */
export const greet = (who: string): string => {
  if (who.length === 0) throw new InvalidOptionError({ option: "who", value: who, reason: "expected a non-empty name" })
  return `hello, ${who}`
}

/** {@link greet} as an Effect: fails with {@link InvalidOptionError}. */
export const greetEffect = (who: string): Effect.Effect<string, InvalidOptionError> =>
  Effect.try({ try: () => greet(who), catch: (e) => e as InvalidOptionError })
