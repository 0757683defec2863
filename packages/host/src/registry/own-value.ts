/**
 * `map[name]` for names read from a manifest or a skill: only the map's own entries count, never what every object
 * inherits (`toString`, `constructor`, `__proto__`), which would otherwise pass for a credential, tool or module.
 */
export function ownValue<T>(map: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, name) ? map[name] : undefined;
}
