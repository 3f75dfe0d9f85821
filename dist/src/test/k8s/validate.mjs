// SPDX-License-Identifier: Apache-2.0
// Schema-validates every document of the given Kubernetes manifest files, the way `kubectl apply
// --validate` would before sending them: types, required fields, enums and formats of the Kubernetes API
// (kubernetes-models, generated from the release's OpenAPI spec) and of prometheus-operator's CRDs.
// Also checks what the schemas cannot: a NetworkAttachmentDefinition's `spec.config` is a CNI network
// configuration (JSON with cniVersion, name and a plugin list or type), and a DaemonSet's volume mounts
// all name a declared volume, and its update strategy hands over (surge, see checkUpdateStrategy). Prints "file: kind/name: ok" or the problems; exits 1 on any problem.
import { readFileSync } from "node:fs";
import yaml from "js-yaml";

const models = {
  "v1": (kind) => `kubernetes-models/v1/${kind}`,
  "apps/v1": (kind) => `kubernetes-models/apps/v1/${kind}`,
  "rbac.authorization.k8s.io/v1": (kind) => `kubernetes-models/rbac.authorization.k8s.io/v1/${kind}`,
  "monitoring.coreos.com/v1": (kind) => `@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${kind}`,
};

function checkCniConfig(doc) {
  const problems = [];
  let conf;
  try { conf = JSON.parse(doc.spec?.config ?? ""); } catch (e) { return [`spec.config is not JSON: ${e.message}`]; }
  if (!conf.cniVersion) problems.push("spec.config: cniVersion missing");
  if (!conf.name && doc.spec?.config?.includes("plugins")) problems.push("spec.config: name missing");
  if (!conf.type && !Array.isArray(conf.plugins)) problems.push("spec.config: neither type nor plugins");
  for (const [i, p] of (conf.plugins ?? []).entries()) if (!p.type) problems.push(`spec.config.plugins[${i}]: type missing`);
  return problems;
}

// Host paths the agent reads or writes with the ConfigMap's configuration (its defaults): each must reach the
// pod through a hostPath volume, or the agent works on the container's own empty directory.
const requiredHostPaths = (process.env.REQUIRED_HOST_PATHS ?? "").split(",").filter(Boolean);

function checkMounts(doc) {
  const spec = doc.spec?.template?.spec;
  if (!spec) return [];
  const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
  const hostPaths = new Set((spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.hostPath.path));
  const problems = requiredHostPaths.filter((p) => !hostPaths.has(p)).map((p) => `no hostPath volume for ${p}`);
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
    for (const m of c.volumeMounts ?? [])
      if (!volumes.has(m.name)) problems.push(`container ${c.name}: volumeMount ${m.name} names no volume`);
  return problems;
}

// Upgrades (issue 27): the new pod starts beside the old one on each node and takes over from it, so the
// DaemonSet surges (maxSurge 1) and never removes an agent first (maxUnavailable 0); no container declares a
// port (with hostNetwork it is a hostPort, and a surge pod asking for the old pod's host port is never
// scheduled); the grace period covers the old agent's Freeflow drain and its stop.
const drainSeconds = Number(process.env.HANDOVER_DRAIN_SECONDS ?? 30);
const shutdownSeconds = Number(process.env.SHUTDOWN_SECONDS ?? 10);

function checkUpdateStrategy(doc) {
  const problems = [];
  const strategy = doc.spec?.updateStrategy;
  const rolling = strategy?.rollingUpdate ?? {};
  if (strategy?.type !== "RollingUpdate") problems.push(`updateStrategy.type is ${strategy?.type}, not RollingUpdate`);
  if (String(rolling.maxSurge) !== "1") problems.push(`updateStrategy.rollingUpdate.maxSurge is ${rolling.maxSurge}, not 1`);
  if (String(rolling.maxUnavailable) !== "0") problems.push(`updateStrategy.rollingUpdate.maxUnavailable is ${rolling.maxUnavailable}, not 0`);
  const spec = doc.spec?.template?.spec ?? {};
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
    if ((c.ports ?? []).length && spec.hostNetwork)
      problems.push(`container ${c.name}: declares ports with hostNetwork (host ports: a surge pod cannot be scheduled)`);
  const grace = spec.terminationGracePeriodSeconds ?? 30;
  if (grace < drainSeconds + shutdownSeconds)
    problems.push(`terminationGracePeriodSeconds ${grace} < Freeflow drain ${drainSeconds} s + shutdown ${shutdownSeconds} s`);
  return problems;
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  for (const doc of yaml.loadAll(readFileSync(file, "utf8"))) {
    if (!doc) continue;
    const id = `${file}: ${doc.kind}/${doc.metadata?.name}`;
    let problems = [];
    if (doc.apiVersion === "k8s.cni.cncf.io/v1" && doc.kind === "NetworkAttachmentDefinition") {
      problems = checkCniConfig(doc);
    } else if (!models[doc.apiVersion]) {
      problems = [`no schema for apiVersion ${doc.apiVersion}`];
    } else {
      const mod = await import(models[doc.apiVersion](doc.kind)).catch(() => null);
      const Model = mod && mod[doc.kind];
      if (!Model) problems = [`unknown kind ${doc.kind} in ${doc.apiVersion}`];
      else try { new Model(doc).validate(); } catch (e) { problems = [e.message]; }
      if (doc.kind === "DaemonSet") problems.push(...checkMounts(doc), ...checkUpdateStrategy(doc));
    }
    if (problems.length) { failed++; console.log(`${id}: ${problems.join("; ")}`); }
    else console.log(`${id}: ok`);
  }
}
process.exit(failed ? 1 : 0);
