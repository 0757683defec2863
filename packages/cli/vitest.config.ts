export { spawning as default } from "../../vitest.shared.ts";
