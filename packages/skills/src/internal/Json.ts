/**
 * JSON equality and a JSON Schema subset validator (internal: not part of the public API).
 * @since 0.1.0
 */

/** `v` with every object's keys sorted (so equal JSON values print the same). */
export const canon = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canon) : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
    : v

/** Deep equality of JSON values (object key order ignored). */
export const deepEqual = (a: unknown, b: unknown): boolean => JSON.stringify(canon(a)) === JSON.stringify(canon(b))

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x)

const typeMatches = (t: string, v: unknown): boolean => {
  switch (t) {
    case "object":
      return isObject(v)
    case "array":
      return Array.isArray(v)
    case "string":
      return typeof v === "string"
    case "number":
      return typeof v === "number" && Number.isFinite(v)
    case "integer":
      return typeof v === "number" && Number.isInteger(v)
    case "boolean":
      return typeof v === "boolean"
    case "null":
      return v === null
    default:
      return true
  }
}

/**
 * The first way `value` breaks `schema` (as `path: reason`), or `undefined` when it conforms. Supports the keywords
 * tool-calling schemas use: `type`, `const`, `enum`, `anyOf`, `oneOf`, `allOf`, `not`, `properties`, `required`,
 * `additionalProperties`, `items`, `minItems`, `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`; other keywords (`description`, `title`, ...) are ignored.
 */
export const violation = (schema: unknown, value: unknown, path = "$"): string | undefined => {
  if (schema === true || schema === undefined) return undefined
  if (schema === false) return `${path}: no value is allowed`
  if (!isObject(schema)) return undefined
  const s = schema
  const show = (): string => JSON.stringify(value) ?? String(value)
  if (s["type"] !== undefined) {
    const types = Array.isArray(s["type"]) ? s["type"] as Array<string> : [s["type"] as string]
    if (!types.some((t) => typeMatches(t, value))) return `${path}: ${show()} is not of type ${types.join(" | ")}`
  }
  if ("const" in s && !deepEqual(s["const"], value)) return `${path}: ${show()} is not ${JSON.stringify(s["const"])}`
  if (Array.isArray(s["enum"]) && !s["enum"].some((e) => deepEqual(e, value))) return `${path}: ${show()} is not one of ${JSON.stringify(s["enum"])}`
  if (Array.isArray(s["allOf"])) {
    for (const sub of s["allOf"]) {
      const v = violation(sub, value, path)
      if (v !== undefined) return v
    }
  }
  if (Array.isArray(s["anyOf"])) {
    const all = s["anyOf"].map((sub) => violation(sub, value, path))
    if (!all.some((v) => v === undefined)) return `${path}: ${show()} matches none of anyOf (${all.join("; ")})`
  }
  if (Array.isArray(s["oneOf"])) {
    const n = s["oneOf"].filter((sub) => violation(sub, value, path) === undefined).length
    if (n !== 1) return `${path}: ${show()} matches ${n} of oneOf, not exactly one`
  }
  if (s["not"] !== undefined && violation(s["not"], value, path) === undefined) return `${path}: ${show()} matches a "not" schema`
  if (typeof value === "number") {
    if (typeof s["minimum"] === "number" && value < s["minimum"]) return `${path}: ${value} < minimum ${s["minimum"]}`
    if (typeof s["maximum"] === "number" && value > s["maximum"]) return `${path}: ${value} > maximum ${s["maximum"]}`
    if (typeof s["exclusiveMinimum"] === "number" && value <= s["exclusiveMinimum"]) return `${path}: ${value} <= exclusiveMinimum ${s["exclusiveMinimum"]}`
    if (typeof s["exclusiveMaximum"] === "number" && value >= s["exclusiveMaximum"]) return `${path}: ${value} >= exclusiveMaximum ${s["exclusiveMaximum"]}`
  }
  if (typeof value === "string") {
    if (typeof s["minLength"] === "number" && value.length < s["minLength"]) return `${path}: ${show()} is shorter than ${s["minLength"]}`
    if (typeof s["maxLength"] === "number" && value.length > s["maxLength"]) return `${path}: ${show()} is longer than ${s["maxLength"]}`
    if (typeof s["pattern"] === "string" && !new RegExp(s["pattern"], "u").test(value)) return `${path}: ${show()} does not match /${s["pattern"]}/`
  }
  if (Array.isArray(value)) {
    if (typeof s["minItems"] === "number" && value.length < s["minItems"]) return `${path}: fewer than ${s["minItems"]} items`
    if (typeof s["maxItems"] === "number" && value.length > s["maxItems"]) return `${path}: more than ${s["maxItems"]} items`
    if (s["items"] !== undefined && !Array.isArray(s["items"])) {
      for (const [i, item] of value.entries()) {
        const v = violation(s["items"], item, `${path}[${i}]`)
        if (v !== undefined) return v
      }
    }
  }
  if (isObject(value)) {
    const props = isObject(s["properties"]) ? s["properties"] : {}
    if (Array.isArray(s["required"])) {
      for (const k of s["required"]) if (typeof k === "string" && !(k in value)) return `${path}: missing required property ${JSON.stringify(k)}`
    }
    for (const [k, v] of Object.entries(value)) {
      if (k in props) {
        const bad = violation(props[k], v, `${path}.${k}`)
        if (bad !== undefined) return bad
      } else if (s["additionalProperties"] !== undefined) {
        const bad = violation(s["additionalProperties"], v, `${path}.${k}`)
        if (bad !== undefined) return bad
      }
    }
  }
  return undefined
}
