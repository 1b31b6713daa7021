/**
 * Chance nodes that deal one card uniformly from what is left of a deck (Kuhn and Leduc poker): the legal outcomes
 * and their probabilities for each set of dealt cards, computed once and cached as frozen arrays, so a solver walking
 * the tree allocates nothing at chance nodes.
 *
 * **Details**: a deal state is a bitmask of the cards already dealt (bit c set = card c is out of the deck); the legal
 * outcomes are the cards whose bit is clear, in ascending order, each with probability 1 / (cards left), as
 * OpenSpiel's `ChanceOutcomes` for these games.
 * @internal
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
export class DealCache {
  private readonly legalCache = new Map<number, ReadonlyArray<number>>()
  private readonly outcomeCache = new Map<number, ReadonlyArray<readonly [number, number]>>()

  /** @param numCards cards in the full deck (at most 31, a bitmask in an int). */
  constructor(readonly numCards: number) {}

  /** Cards still in the deck when the cards in `dealtMask` are out (frozen; do not mutate). */
  legal(dealtMask: number): ReadonlyArray<number> {
    let out = this.legalCache.get(dealtMask)
    if (out === undefined) {
      const xs: Array<number> = []
      for (let c = 0; c < this.numCards; c++) if ((dealtMask & (1 << c)) === 0) xs.push(c)
      out = Object.freeze(xs)
      this.legalCache.set(dealtMask, out)
    }
    return out
  }

  /** `[card, 1 / cards left]` for each card still in the deck (frozen; do not mutate). */
  outcomes(dealtMask: number): ReadonlyArray<readonly [number, number]> {
    let out = this.outcomeCache.get(dealtMask)
    if (out === undefined) {
      const legal = this.legal(dealtMask)
      const p = 1 / legal.length
      out = Object.freeze(legal.map((c) => Object.freeze([c, p] as const)))
      this.outcomeCache.set(dealtMask, out)
    }
    return out
  }
}
