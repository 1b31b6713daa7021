/**
 * Text clipping for prompts and error messages (internal: not part of the public API).
 * @since 0.1.0
 */

/** `s`, or its first `n` characters and a marker of how many were cut. */
export const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, Math.max(0, n - 40))} … [${s.length - Math.max(0, n - 40)} more chars]`)

/** `s`, or its head and tail with a marker in the middle (for code: both ends matter). */
export const clipMiddle = (s: string, n: number): string => {
  if (s.length <= n) return s
  const keep = Math.max(0, n - 40)
  const head = Math.ceil(keep / 2)
  return `${s.slice(0, head)}\n… [${s.length - keep} chars omitted] …\n${s.slice(s.length - (keep - head))}`
}

/** `s` on one line (whitespace runs collapsed), clipped to `n` characters. */
export const oneLine = (s: string, n: number): string => clip(s.replace(/\s+/g, " ").trim(), n)
