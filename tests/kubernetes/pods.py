"""Runs the snowflake-c containers of Kubernetes manifests here, as the
kubelet would start them, and checks the node values they get.

Each pod runs in new UTS, network and mount namespaces (unshare -umn: its
own host name, its own abstract sockets, where the guard claims node values,
and its own /dev/shm, a tmpfs where values given back ahead of the clock are
handed over, as a pod has), with what Kubernetes gives a pod: the host name (StatefulSet: NAME-ORDINAL;
Job: NAME-INDEX-xxxxx), JOB_COMPLETION_INDEX in an Indexed Job, Downward API
values (metadata.name, metadata.labels), the securityContext's user and
groups (when run as root), and its volumes as folders (a volumeClaimTemplate
keeps its folder across restarts of the same pod, with the fsGroup's group
and mode 2775; an emptyDir is mode 0777, as the kubelet makes it). The
snowflake-c of the command is the one given; `sleep` (the containers' idle
step) returns at once and says so on standard error. Checked:

- every container of every pod starts: exit 0, nothing on standard error
  but the idle step, IDs whose node values are those the manifest asks for
  (host: the host name's ordinal; env:NAME: that variable);
- pods that run at the same time (every pod of every workload) never share
  static node values in one layout;
- a restarted pod keeps its volume's high-water mark: later IDs, and a start
  on a clock an hour behind is refused (faketime) while a fresh volume is not;
- two processes of one pod with the same static values: the second one is
  refused (WorkerUnavailable);
- with a pool field (auto), three processes of one pod take distinct values
  and issue no duplicate ID.

    python pods.py --cli PATH MANIFEST...      (as root, or with user namespaces)
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

HERE = os.path.abspath(__file__)
RESULTS = {True: 0, False: 0}


def check(ok, what):
    ok = bool(ok)
    print(("ok   " if ok else "FAIL ") + what)
    RESULTS[ok] += 1
    return ok


# --- Inside a pod: run processes, hand back their output ------------------


def pod_main(hostname):
    """Runs in the pod's namespaces: reads process specs (JSON) on stdin,
    starts them in order, waiting for the first line of output of those
    marked "hold" (so that they are live, blocked on a full pipe, while the
    next ones start), then collects every output. Prints the results."""
    import socket

    socket.sethostname(hostname)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777,size=16m", "pod-shm", "/dev/shm"], check=True)
    specs = json.load(sys.stdin)
    procs, first = [], []
    for s in specs:
        creds = {}
        if s.get("uid") is not None:
            creds = {"user": s["uid"], "group": s["gid"], "extra_groups": s["groups"]}
        p = subprocess.Popen(
            s["argv"],
            env=s["env"],
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **creds,
        )
        procs.append(p)
        first.append(p.stdout.readline() if s.get("hold") else "")
    results = [None] * len(procs)

    # Read through the file objects: readline above may have buffered more
    # than the first line.
    def collect(i, p):
        err = []
        t = threading.Thread(target=lambda: err.append(p.stderr.read()))
        t.start()
        out = p.stdout.read()
        t.join()
        results[i] = {"rc": p.wait(), "out": first[i] + out, "err": err[0]}

    threads = [threading.Thread(target=collect, args=(i, p)) for i, p in enumerate(procs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    json.dump(results, sys.stdout)


def unshare_prefix():
    for prefix in (["unshare", "-umn"], ["unshare", "-Urumn"]):
        if subprocess.run(prefix + ["true"], capture_output=True).returncode == 0:
            return prefix
    return None


def run_in_pod(prefix, hostname, specs):
    r = subprocess.run(
        prefix + [sys.executable, HERE, "--in-pod", hostname],
        input=json.dumps(specs),
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise SystemExit(f"pods.py: the pod {hostname} failed to run:\n{r.stderr}")
    return json.loads(r.stdout)


# --- Reading the manifests ------------------------------------------------


class Pod:
    """One pod of a workload, as Kubernetes would make it."""

    def __init__(self, workload, index, sandbox):
        self.workload, self.index = workload, index
        kind, meta, spec = workload["kind"], workload["metadata"], workload["spec"]
        self.template = spec["template"]
        self.spec = self.template["spec"]
        name = meta["name"]
        labels = dict((self.template.get("metadata") or {}).get("labels") or {})
        self.env = {}
        if kind == "StatefulSet":
            self.name = f"{name}-{index}"
            labels["statefulset.kubernetes.io/pod-name"] = self.name
            labels["apps.kubernetes.io/pod-index"] = str(index)
        elif kind == "Job":
            alphabet = "bcdfghjklmnpqrstvwxz2456789"
            self.name = f"{name}-{index}-" + "".join(random.choices(alphabet, k=5))
            labels["job-name"] = labels["batch.kubernetes.io/job-name"] = name
            if spec.get("completionMode") == "Indexed":
                labels["batch.kubernetes.io/job-completion-index"] = str(index)
                self.env["JOB_COMPLETION_INDEX"] = str(index)
        else:
            raise SystemExit(f"pods.py: a {kind} has no stable pod identity to emulate")
        self.labels = labels
        self.sandbox = sandbox
        self.fresh = 0

    def volume_dirs(self, fresh=False):
        """Folder of each volume, by name. A claim's folder is the pod's
        own and outlives the pod; fresh=True gives a new one."""
        sc = self.spec.get("securityContext") or {}
        fs_group = sc.get("fsGroup")
        dirs = {}
        claims = [c["metadata"]["name"] for c in self.workload["spec"].get("volumeClaimTemplates") or []]
        if fresh:
            self.fresh += 1
        for claim in claims:
            suffix = f".fresh{self.fresh}" if fresh else ""
            dirs[claim] = self.make_dir(f"pv.{claim}.{self.name}{suffix}", 0o2775 if fs_group else 0o755, fs_group)
        for v in self.spec.get("volumes") or []:
            if "emptyDir" not in v:
                raise SystemExit(f"pods.py: volume {v['name']}: only emptyDir and claims are emulated")
            dirs[v["name"]] = self.make_dir(f"empty.{v['name']}.{self.name}.{random.random()}", 0o777, fs_group)
        return dirs

    def make_dir(self, name, mode, group):
        path = os.path.join(self.sandbox, name)
        if not os.path.isdir(path):
            os.mkdir(path)
            if group is not None and os.geteuid() == 0:
                os.chown(path, 0, group)
            os.chmod(path, mode)
        return path

    def container_env(self, c):
        env = dict(self.env)
        for e in c.get("env") or []:
            if "value" in e:
                env[e["name"]] = expand(e["value"], env)
                continue
            field = ((e.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
            m = re.fullmatch(r"metadata\.labels\['([^']+)'\]", field or "")
            if field == "metadata.name":
                env[e["name"]] = self.name
            elif m and m.group(1) in self.labels:
                env[e["name"]] = self.labels[m.group(1)]
            else:
                raise SystemExit(f"pods.py: {self.name}: env {e['name']}: {e.get('valueFrom')} is not emulated")
        return env

    def creds(self, c):
        if os.geteuid() != 0:
            return {}
        sc = dict(self.spec.get("securityContext") or {})
        sc.update(c.get("securityContext") or {})
        if sc.get("runAsUser") is None:
            return {}
        fs_group = (self.spec.get("securityContext") or {}).get("fsGroup")
        return {
            "uid": sc["runAsUser"],
            "gid": sc.get("runAsGroup", 0),
            "groups": [fs_group] if fs_group is not None else [],
        }


def expand(text, env):
    """Kubernetes' $(VAR) references in env values, command and args."""
    return re.sub(
        r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
        lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)),
        text,
    )


def cli_argv(argv):
    """The snowflake-c command line inside a container's command: the
    command itself, or the first snowflake-c of a `sh -c` script."""
    if argv and os.path.basename(argv[0]) == "snowflake-c":
        return argv
    if len(argv) >= 3 and os.path.basename(argv[0]) in ("sh", "bash") and argv[1] == "-c":
        lex = shlex.shlex(argv[2], posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        tokens = list(lex)
        if "snowflake-c" in tokens:
            rest = tokens[tokens.index("snowflake-c") :]
            for i, t in enumerate(rest):
                if t in ("&&", "||", ";", "|", "&"):
                    return rest[:i]
            return rest
    return None


def options(argv):
    """--name value and --name=value options of a snowflake-c command."""
    opts, i = {}, 1
    while i < len(argv):
        a = argv[i]
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            opts[k] = v
        elif a.startswith("-") and i + 1 < len(argv):
            opts[a] = argv[i + 1]
            i += 1
        i += 1
    return opts


def with_count(argv, n):
    out = list(argv)
    for flag in ("-n", "--count"):
        if flag in out:
            out[out.index(flag) + 1] = str(n)
            return out
    return out + ["-n", str(n)]


# --- The checks -----------------------------------------------------------


class Harness:
    def __init__(self, cli, prefix, sandbox):
        self.cli, self.prefix, self.sandbox = cli, prefix, sandbox
        self.bin = os.path.join(sandbox, "bin")
        os.mkdir(self.bin)
        os.symlink(cli, os.path.join(self.bin, "snowflake-c"))
        with open(os.path.join(self.bin, "sleep"), "w") as f:
            f.write('#!/bin/sh\necho "(idle: sleep $*)" >&2\n')
        os.chmod(self.bin, 0o755)
        os.chmod(os.path.join(self.bin, "sleep"), 0o755)
        os.chmod(sandbox, 0o755)

    def spec(self, pod, c, volumes, argv=None, hold=False, faketime=None):
        env = pod.container_env(c)
        creds = pod.creds(c)
        env.update(PATH=f"{self.bin}:/usr/bin:/bin", HOSTNAME=pod.name)
        if argv is None:
            argv = [expand(a, env) for a in (c.get("command") or []) + (c.get("args") or [])]
        mounts = sorted(c.get("volumeMounts") or [], key=lambda m: -len(m["mountPath"]))
        for m in mounts:
            argv = [a.replace(m["mountPath"], volumes[m["name"]]) for a in argv]
        if faketime:
            argv = ["faketime", "-f", faketime] + argv
        return dict(
            argv=argv, env=env, hold=hold, uid=creds.get("uid"), gid=creds.get("gid"), groups=creds.get("groups")
        )

    def decode(self, argv, ids):
        opts = options(argv)
        layout = ["--preset", opts["--preset"]] if "--preset" in opts else []
        for k in ("--layout", "--epoch"):
            if k in opts:
                layout += [k, opts[k]]
        r = subprocess.run(
            [self.cli, "decode", "--json"] + layout,
            input="\n".join(map(str, ids)) + "\n",
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise SystemExit(f"pods.py: decode failed: {r.stderr}")
        parts = [json.loads(line) for line in r.stdout.splitlines()]
        return [{k: v for k, v in p.items() if k not in ("id", "time_ms", "time", "seq", "clock")} for p in parts]

    def expected(self, argv, env, hostname):
        """Node values the command asks for: field -> int, or None (pool)."""
        nodes = {}
        for item in filter(None, options(argv).get("--node", "").split(",")):
            k, v = item.split("=", 1)
            nodes[k] = v
        for k, v in env.items():
            if k.startswith("SNOWFLAKE_"):
                nodes.setdefault(k[len("SNOWFLAKE_") :].lower(), v)
        out = {}
        for k, v in nodes.items():
            if v == "auto":
                out[k] = None
            elif v == "host":
                out[k] = int(re.search(r"(\d+)$", hostname).group(1))
            elif v.startswith("env:"):
                out[k] = int(env[v[4:]])
            else:
                out[k] = int(v)
        return out


def ids_of(result):
    return [int(line) for line in result["out"].split()]


def run_workload(h, w, static_seen):
    kind, name = w["kind"], w["metadata"]["name"]
    spec = w["spec"]
    count = spec.get("replicas", 1) if kind == "StatefulSet" else spec.get("completions", 1)
    containers = [
        c
        for c in w["spec"]["template"]["spec"]["containers"]
        if cli_argv((c.get("command") or []) + (c.get("args") or []))
    ]
    if not containers:
        return
    pods = [Pod(w, i, h.sandbox) for i in range(count)]
    for pod in pods:
        volumes = pod.volume_dirs()
        specs = [h.spec(pod, c, volumes) for c in containers]
        results = run_in_pod(h.prefix, pod.name, specs)
        for c, s, r in zip(containers, specs, results, strict=True):
            where = f"{kind}/{name} pod {pod.name} container {c['name']}"
            idle = any("exec sleep" in a for a in s["argv"])
            want_err = "(idle: sleep infinity)\n" if idle else ""
            if not check(
                r["rc"] == 0 and r["err"] == want_err, f"{where}: starts (exit {r['rc']}, stderr {r['err']!r})"
            ):
                continue
            argv = cli_argv(s["argv"])
            ids = ids_of(r)
            got = h.decode(argv, ids[:1])[0]
            want = h.expected(argv, s["env"], pod.name)
            check(
                set(got) == set(want) and all(want[k] in (None, got[k]) for k in want),
                f"{where}: node values {got} are those asked for ({want})",
            )
            layout = tuple(sorted((k, v) for k, v in options(argv).items() if k in ("--preset", "--layout", "--epoch")))
            static = tuple(sorted((k, got[k]) for k in want if want[k] is not None))
            if c is containers[0]:
                holder = static_seen.setdefault((layout, static), where)
                also = "" if holder == where else f" (also held by {holder})"
                check(not also, f"{where}: static node values {dict(static)} are its own{also}")
    pod = pods[min(1, count - 1)]
    c = containers[0]
    volumes = pod.volume_dirs()
    argv = cli_argv(h.spec(pod, c, volumes)["argv"])
    env = h.spec(pod, c, volumes)["env"]
    want = h.expected(argv, env, pod.name)
    where = f"{kind}/{name} pod {pod.name}"
    pool = [k for k, v in want.items() if v is None]
    used = set()
    if pool:
        # Three processes of one pod, all live together.
        specs = [h.spec(pod, c, volumes, argv=with_count(argv, 300000), hold=True) for _ in range(3)]
        results = run_in_pod(h.prefix, pod.name, specs)
        if check(
            all(r["rc"] == 0 for r in results),
            f"{where}: 3 processes run together ({[r['err'] for r in results if r['rc']]})",
        ):
            got = [h.decode(argv, ids_of(r)[:1])[0] for r in results]
            values = [tuple(g[k] for k in pool) for g in got]
            used.update(values)
            check(len(set(values)) == 3, f"{where}: 3 live processes take distinct {pool} values {values}")
            all_ids = [i for r in results for i in ids_of(r)]
            check(
                len(all_ids) == 900000 and len(set(all_ids)) == len(all_ids),
                f"{where}: {len(all_ids)} IDs, no duplicate",
            )
    else:
        specs = [h.spec(pod, c, volumes, argv=with_count(argv, 1000000), hold=True), h.spec(pod, c, volumes, argv=argv)]
        first, second = run_in_pod(h.prefix, pod.name, specs)
        check(
            first["rc"] == 0 and second["rc"] != 0 and "WorkerUnavailable" in second["err"],
            f"{where}: a second process with the same values is refused: {second['err'].strip()[:160]}",
        )
    if "--state-dir" in options(argv) and spec.get("volumeClaimTemplates"):
        full = [h.spec(pod, c2, volumes) for c2 in containers]
        before = max(ids_of(run_in_pod(h.prefix, pod.name, full)[0]))
        again = run_in_pod(h.prefix, pod.name, full)[0]
        check(again["rc"] == 0 and min(ids_of(again)) > before, f"{where}: restarted on its volume, issues later IDs")
        used.update(tuple(g[k] for k in pool) for g in h.decode(argv, [before, min(ids_of(again))]))
        behind = run_in_pod(h.prefix, pod.name, [h.spec(pod, c, volumes, faketime="-1h")])[0]
        if pool and behind["rc"] == 0:
            # A pool passes over the values whose marks are ahead of the
            # clock: a value that never issued an ID cannot collide.
            took = tuple(h.decode(argv, ids_of(behind)[:1])[0][k] for k in pool)
            check(
                took not in used,
                f"{where}: on a node whose clock is an hour behind, takes {pool}={took}, unused ({sorted(used)})",
            )
        else:
            check(
                behind["rc"] != 0 and "ClockMovedBackwards" in behind["err"],
                f"{where}: on a node whose clock is an hour behind, its volume's mark refuses: {behind['err'][:100]}",
            )
        fresh = run_in_pod(h.prefix, pod.name, [h.spec(pod, c, pod.volume_dirs(fresh=True), faketime="-1h")])[0]
        check(fresh["rc"] == 0, f"{where}: (while with a new, empty volume it would start: exit {fresh['rc']})")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--in-pod":
        return pod_main(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the snowflake-c command to run")
    parser.add_argument("manifests", nargs="+")
    args = parser.parse_args()
    prefix = unshare_prefix()
    if prefix is None:
        print("pods.py: SKIP: unshare -umn needs root or user namespaces")
        return 77
    if shutil.which("faketime") is None:
        raise SystemExit("pods.py: faketime is not on PATH: run scripts/setup")
    static_seen = {}
    with tempfile.TemporaryDirectory(prefix="k8s-pods.") as sandbox:
        h = Harness(os.path.abspath(args.cli), prefix, sandbox)
        for path in args.manifests:
            with open(path, encoding="utf-8") as f:
                for doc in yaml.safe_load_all(f):
                    if doc and doc.get("kind") in ("StatefulSet", "Job"):
                        run_workload(h, doc, static_seen)
    print(f"pods.py: {RESULTS[True]} passed, {RESULTS[False]} failed")
    return 1 if RESULTS[False] or not RESULTS[True] else 0


if __name__ == "__main__":
    sys.exit(main())
