import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild({ index: "src/index.ts", node: "src/node.ts", "worker-host": "src/worker-host.ts" });
