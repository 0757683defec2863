import { defineConfig, mergeConfig } from "vitest/config";
import { shared } from "../../vitest.shared.ts";

// Servers the tests start keep no start image (src/start-image.ts) in the user's cache: a test that wants one turns
// it on with its own cache folder.
export default mergeConfig(shared, defineConfig({ test: { env: { SKILLPORT_START_IMAGE: "off" } } }));
