"""Checks Kubernetes manifests without a cluster.

Every document is validated against the strict JSON schemas of the
Kubernetes API (kubernetes-validate's, bundled in its package from PyPI:
unknown fields, wrong types and missing required fields are errors), for
each Kubernetes version given. Then what the schemas cannot see, within one
file: a workload's selector matches its pod labels, a StatefulSet's
serviceName is a headless Service of the file that selects its pods, every
container has an image, every volume mount names a volume, and names are not repeated. A YAML key given
twice is an error too (YAML loaders keep the last one silently).

    python validate.py [-k VERSION]... MANIFEST...

Exits 1 if any manifest has an error, 2 on bad usage.
"""

import argparse
import sys

import kubernetes_validate
import yaml
from kubernetes_validate import utils

WORKLOADS = {"StatefulSet", "Deployment", "DaemonSet", "ReplicaSet", "Job"}


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping key given twice."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r}",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load(path):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.load_all(f, Loader=StrictLoader) if d is not None]
    if not docs:
        raise ValueError("no Kubernetes object in the file")
    for d in docs:
        if not isinstance(d, dict):
            raise ValueError(f"a document is a {type(d).__name__}, not an object")
    return docs


def name_of(doc):
    meta = doc.get("metadata") or {}
    return f"{doc.get('kind', '?')}/{meta.get('name', '?')}"


def schema_errors(doc, versions):
    for version in versions:
        try:
            utils.validate(doc, version, strict=True)
        except utils.ValidationError as e:
            path = ".".join(str(p) for p in e.path) or "(top)"
            yield f"{name_of(doc)}: Kubernetes {e.version}: {path}: {e.message}"
        except utils.SchemaNotFoundError as e:
            # kubernetes-validate only warns here; an unknown kind or
            # apiVersion is an error for us.
            yield f"{name_of(doc)}: {e.message}"
        except utils.VersionNotSupportedError as e:
            raise SystemExit(f"validate.py: {e.message}") from None


def pod_template(doc):
    spec = doc.get("spec") or {}
    return spec.get("template") or {}


def workload_errors(doc, services):
    name = name_of(doc)
    spec = doc.get("spec") or {}
    template = pod_template(doc)
    labels = (template.get("metadata") or {}).get("labels") or {}
    match = (spec.get("selector") or {}).get("matchLabels") or {}
    if doc["kind"] != "Job" or spec.get("manualSelector"):
        if not match:
            yield f"{name}: spec.selector.matchLabels is empty"
        for key, value in match.items():
            if labels.get(key) != value:
                yield (f"{name}: selector {key}={value} does not match the pod template's labels {labels}")
    pod = template.get("spec") or {}
    volumes = [v.get("name") for v in pod.get("volumes") or []]
    claims = [(c.get("metadata") or {}).get("name") for c in spec.get("volumeClaimTemplates") or []]
    declared = volumes + claims
    for n in {n for n in declared if declared.count(n) > 1}:
        yield f"{name}: volume {n} is declared twice"
    containers = (pod.get("initContainers") or []) + (pod.get("containers") or [])
    cnames = [c.get("name") for c in containers]
    for n in {n for n in cnames if cnames.count(n) > 1}:
        yield f"{name}: container name {n} is used twice"
    for c in containers:
        if not c.get("image"):
            yield f"{name}: container {c.get('name')} has no image"
        for m in c.get("volumeMounts") or []:
            if m.get("name") not in declared:
                yield (
                    f"{name}: container {c.get('name')} mounts {m.get('name')}, "
                    "which is neither a volume nor a volumeClaimTemplate"
                )
        env = [e.get("name") for e in c.get("env") or []]
        for n in {n for n in env if env.count(n) > 1}:
            yield f"{name}: container {c.get('name')} sets {n} twice"
    if doc["kind"] == "StatefulSet":
        svc = services.get(spec.get("serviceName"))
        if svc is None:
            yield (f"{name}: serviceName {spec.get('serviceName')!r} is not a Service of this file")
        else:
            sspec = svc.get("spec") or {}
            if sspec.get("clusterIP") != "None":
                yield f"{name}: its Service {name_of(svc)} is not headless"
            for key, value in (sspec.get("selector") or {}).items():
                if labels.get(key) != value:
                    yield (f"{name}: its Service selects {key}={value}, which its pods do not carry")


def check(path, versions):
    try:
        docs = load(path)
    except (OSError, ValueError, yaml.YAMLError) as e:
        return [f"{path}: {e}"], 0
    errors = []
    for doc in docs:
        errors += [f"{path}: {e}" for e in schema_errors(doc, versions)]
    if errors:
        return errors, len(docs)
    names = [name_of(d) for d in docs]
    for n in {n for n in names if names.count(n) > 1}:
        errors.append(f"{path}: {n} is defined twice")
    services = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service"}
    for doc in docs:
        if doc["kind"] in WORKLOADS:
            errors += [f"{path}: {e}" for e in workload_errors(doc, services)]
    return errors, len(docs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-k",
        "--kubernetes-version",
        action="append",
        help="a Kubernetes version to validate against (repeatable; "
        "default: the newest that kubernetes-validate knows)",
    )
    parser.add_argument("manifests", nargs="+")
    args = parser.parse_args()
    versions = args.kubernetes_version or [utils.latest_version()]
    failed = documents = 0
    for path in args.manifests:
        errors, n = check(path, versions)
        documents += n
        for e in errors:
            print(e, file=sys.stderr)
        failed += bool(errors)
    print(
        f"validate.py: {len(args.manifests) - failed} valid, {failed} invalid "
        f"manifests ({documents} objects; Kubernetes {', '.join(versions)}, "
        f"strict schemas of kubernetes-validate "
        f"{kubernetes_validate.__version__})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
