"""The deployment recipes of deploy/service, checked without systemd,
Kubernetes or a container engine running:

- snowflake-c.service: `systemd-analyze verify` (canaries first: a unit it
  must refuse), its structure (DynamicUser, the state folder in
  StateDirectory), and its ExecStart run as systemd would run it;
- statefulset.yaml (its schemas are tests/kubernetes/run's): the probes on
  /readyz and /healthz at the port the command listens on, the Service's
  target, the state folder on the volume; then every replica's command (the
  Containerfile's ENTRYPOINT and the manifest's args) run under its pod's
  host name and probed, its node value from the ordinal;
- Containerfile: its structure (tests/service/container builds it and runs
  the image): pinned bases, a numeric user, exec-form ENTRYPOINT and
  CMD agreeing with the manifest, Meson recent enough for meson.build, its
  -D options those of meson.options, the run-time libraries of its -dev
  packages.

SFC_CLI names the command (built with the service)."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_service import CLI, ROOT, TIMEOUT, Server

DEPLOY = ROOT / "deploy" / "service"


def unit_file() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # keys are case-sensitive
    unit.read(DEPLOY / "snowflake-c.service", encoding="utf-8")
    return unit


def without_listen(argv: list[str]) -> list[str]:
    """argv without its --listen: Server listens on a free port."""
    i = argv.index("--listen")
    return [*argv[:i], *argv[i + 2 :]]


def arg_after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


class Systemd(unittest.TestCase):
    def verify(self, text: str, name: str = "snowflake-c.service") -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / name
            # verify checks that the command exists: the one built here.
            path.write_text(text.replace("/usr/bin/snowflake-c", os.path.abspath(CLI)), encoding="utf-8")
            return subprocess.run(
                ["systemd-analyze", "verify", "--man=no", str(path)], capture_output=True, text=True, timeout=TIMEOUT
            )

    def test_systemd_analyze_verify(self):
        self.assertIsNotNone(shutil.which("systemd-analyze"), "systemd-analyze is missing: run scripts/setup")
        text = (DEPLOY / "snowflake-c.service").read_text(encoding="utf-8")
        # Canaries: a bad value and a misspelled key must not pass.
        for broken in [
            text.replace("DynamicUser=yes", "DynamicUser=perhaps"),
            text.replace("StateDirectory=", "StateDir="),
        ]:
            self.assertNotEqual(text, broken)
            out = self.verify(broken)
            self.assertTrue(out.returncode != 0 or out.stderr, "a broken unit passed: the check is broken")
        out = self.verify(text)
        self.assertEqual((out.returncode, out.stderr), (0, ""))

    def test_structure(self):
        service = unit_file()["Service"]
        self.assertEqual(service["DynamicUser"], "yes")
        argv = shlex.split(service["ExecStart"])
        self.assertEqual(argv[:2], ["/usr/bin/snowflake-c", "serve"])
        self.assertTrue(service["StateDirectory"])
        self.assertEqual(arg_after(argv, "--state-dir"), "${STATE_DIRECTORY}")
        self.assertGreater(int(service["TimeoutStopSec"]), 10, "the drain takes up to 10 s")
        for key in ["PrivateNetwork", "PrivateDevices"]:  # the guard's claim must be the host's
            self.assertNotIn(key, service)

    def test_exec_start_runs(self):
        service = unit_file()["Service"]
        argv = shlex.split(service["ExecStart"])
        with tempfile.TemporaryDirectory() as state:
            argv = [a.replace("${STATE_DIRECTORY}", state) for a in argv[2:]]
            # What systemd gives the command: $STATE_DIRECTORY, the
            # environment file's node value.
            env = {"STATE_DIRECTORY": state, "SNOWFLAKE_WORKER": "3"}
            with Server(without_listen(argv), env=env, cwd=state) as s:
                self.assertEqual(s.get("/readyz")[0], 200)
                self.assertEqual(s.get("/healthz")[0], 200)
                status, _, body = s.get("/v1/id")
                self.assertEqual(status, 200)
                decoded = json.loads(s.get(f"/v1/decode/{int(body)}")[2])
                self.assertEqual(decoded["worker"], 3)
            self.assertEqual(s.proc.returncode, 0, s.lines)
            self.assertTrue(os.listdir(state), "nothing written in the state folder")


def load_yaml(path: Path) -> list[dict]:
    try:
        import yaml
    except ImportError:
        raise AssertionError("PyYAML is missing for python3: run scripts/setup") from None
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def containerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/service/Containerfile, continued
    lines joined, comments left out."""
    text = (DEPLOY / "Containerfile").read_text(encoding="utf-8")
    text = re.sub(r"\\\n(\s*#.*\n)*", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for ins in containerfile():
        if ins[0] == "FROM":
            result.append([])
        result[-1].append(ins)
    return result


def last(stage: list[tuple[str, str]], word: str) -> str:
    return [args for ins, args in stage if ins == word][-1]


class Kubernetes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        docs = load_yaml(DEPLOY / "statefulset.yaml")
        cls.sts = next(d for d in docs if d["kind"] == "StatefulSet")
        cls.services = [d for d in docs if d["kind"] == "Service"]
        cls.pod = cls.sts["spec"]["template"]
        (cls.container,) = cls.pod["spec"]["containers"]
        cls.port = {p["name"]: p["containerPort"] for p in cls.container["ports"]}

    def resolve(self, port) -> int:
        return self.port[port] if isinstance(port, str) else port

    def test_probes_and_service(self):
        c, args = self.container, self.container["args"]
        self.assertEqual(c["readinessProbe"]["httpGet"]["path"], "/readyz")
        self.assertEqual(c["livenessProbe"]["httpGet"]["path"], "/healthz")
        listen = arg_after(args, "--listen")
        self.assertEqual(listen.rsplit(":", 1)[0], "0.0.0.0", "the kubelet probes the pod's address, not loopback")
        port = int(listen.rsplit(":", 1)[1])
        for probe in ["readinessProbe", "livenessProbe"]:
            self.assertEqual(self.resolve(c[probe]["httpGet"]["port"]), port, probe)
        labels = self.pod["metadata"]["labels"]
        clients = [s for s in self.services if s["spec"].get("clusterIP") != "None"]
        self.assertTrue(clients, "no Service for the callers")
        for s in self.services:
            self.assertTrue(all(labels.get(k) == v for k, v in s["spec"]["selector"].items()), s["metadata"]["name"])
            for p in s["spec"]["ports"]:
                self.assertEqual(self.resolve(p["targetPort"]), port, s["metadata"]["name"])
        mounts = [m["mountPath"] for m in c["volumeMounts"]]
        state = arg_after(args, "--state-dir")
        self.assertTrue(
            any(state == m or state.startswith(m + "/") for m in mounts), "the state folder is not a volume"
        )
        self.assertGreater(self.pod["spec"]["terminationGracePeriodSeconds"], 10, "the drain takes up to 10 s")

    def pod_argv(self) -> list[str]:
        """The container's command: the image's ENTRYPOINT, the args."""
        if "command" in self.container:
            return [*self.container["command"], *self.container["args"]]
        return [*json.loads(last(stages()[-1], "ENTRYPOINT")), *self.container["args"]]

    def test_every_replica_runs_and_answers_its_probes(self):
        unshare = ["unshare", "-u"]
        if subprocess.run([*unshare, "true"], capture_output=True).returncode != 0:
            unshare = ["unshare", "-Uru"]
        argv = self.pod_argv()
        self.assertEqual((Path(argv[0]).name, argv[1]), ("snowflake-c", "serve"))
        mount = self.container["volumeMounts"][0]["mountPath"]
        token = "t0ken"  # the optional secret, given
        name = self.sts["metadata"]["name"]
        seen = []
        with tempfile.TemporaryDirectory() as root:
            for k in range(self.sts["spec"]["replicas"]):
                volume = os.path.join(root, f"state-{name}-{k}")
                os.mkdir(volume)
                args = [a.replace(mount, volume) for a in without_listen(argv[2:])]
                last_id = 0
                for start in range(2):  # a restart keeps the volume's mark
                    # The pod's host name, NAME-ORDINAL, in a UTS namespace.
                    hostname = ["sh", "-c", f'hostname {name}-{k} && exec "$@"', "pod"]
                    env = {"SNOWFLAKE_TOKEN": token}
                    with Server(args, env=env, cwd=root, wrap=[*unshare, *hostname]) as s:
                        for probe in ["readinessProbe", "livenessProbe"]:
                            status, _, _ = s.get(self.container[probe]["httpGet"]["path"])
                            self.assertEqual(status, 200, f"{name}-{k} {probe}")
                        self.assertEqual(s.get("/v1/id")[0], 401)
                        auth = {"Authorization": f"Bearer {token}"}
                        status, _, body = s.get("/v1/id", auth)
                        self.assertEqual(status, 200)
                        self.assertGreater(int(body), last_id, f"{name}-{k} start {start}")
                        last_id = int(body)
                        decoded = json.loads(s.get(f"/v1/decode/{last_id}", auth)[2])
                        self.assertEqual(decoded["worker"], k, "worker=host: the host name's ordinal")
                        seen.append((decoded["datacenter"], decoded["worker"]))
                    self.assertEqual(s.proc.returncode, 0, s.lines)
        self.assertEqual(len(set(seen)), self.sts["spec"]["replicas"])


class Containerfile(unittest.TestCase):
    def test_bases_pinned_and_stages_named(self):
        names = []
        for stage in stages():
            image, *rest = stage[0][1].split()
            self.assertRegex(image, r"^[a-z0-9./-]+:[A-Za-z0-9._-]+$", "a base without a tag")
            self.assertFalse(image.endswith(":latest"), image)
            if rest:
                names.append(rest[-1])
        for stage in stages():
            for ins, args in stage:
                m = re.match(r"--from=(\S+)", args)
                if ins == "COPY" and m:
                    self.assertIn(m.group(1), names)

    def test_apt_layers_are_lean(self):
        for ins, args in containerfile():
            if ins == "RUN" and "apt-get install" in args:
                self.assertIn("--no-install-recommends", args)
                self.assertIn("rm -rf /var/lib/apt/lists/*", args)

    def test_runtime_stage_agrees_with_the_manifest(self):
        final = stages()[-1]
        user = last(final, "USER").split(":")
        self.assertTrue(all(u.isdigit() and int(u) > 0 for u in user), "USER: a numeric id, not root")
        entry, cmd = json.loads(last(final, "ENTRYPOINT")), json.loads(last(final, "CMD"))
        copied = [args.split()[-1] for ins, args in final if ins == "COPY"]
        self.assertIn(entry[0], copied, "ENTRYPOINT is not the command copied in")
        self.assertEqual(cmd[0], "serve")
        expose = int(last(final, "EXPOSE"))
        self.assertEqual(arg_after(cmd, "--listen"), f"0.0.0.0:{expose}")
        self.assertIn(arg_after(cmd, "--state-dir"), json.loads(last(final, "VOLUME")))
        sts = next(d for d in load_yaml(DEPLOY / "statefulset.yaml") if d["kind"] == "StatefulSet")
        (container,) = sts["spec"]["template"]["spec"]["containers"]
        self.assertEqual([p["containerPort"] for p in container["ports"]], [expose])
        self.assertEqual(arg_after(container["args"], "--state-dir"), arg_after(cmd, "--state-dir"))
        self.assertEqual(int(user[0]), sts["spec"]["template"]["spec"]["securityContext"]["runAsUser"])

    def test_build_stage_fits_the_project(self):
        build = " ".join(args for ins, args in stages()[0] if ins == "RUN")
        need = re.search(r"meson_version: '>=([0-9.]+)'", (ROOT / "meson.build").read_text()).group(1)
        have = re.search(r"'meson>=([0-9.]+)'", build)
        self.assertIsNotNone(have, "Meson from PyPI with a minimum (Debian 12's is too old)")

        def version(text: str) -> list[int]:
            return [*map(int, text.split(".")), 0, 0][:3]

        self.assertGreaterEqual(version(have.group(1)), version(need))
        options = set(re.findall(r"option\('(\w+)'", (ROOT / "meson.options").read_text()))
        for name in re.findall(r"-D(\w+)=", build):
            self.assertIn(name, options)
        self.assertIn("core/cli/snowflake-c", build)

    def test_runtime_libraries_of_the_dev_packages(self):
        codename = re.search(r"bookworm|trixie|bullseye", stages()[-1][0][1]).group(0)
        host = subprocess.run(["sh", "-c", ". /etc/os-release; echo $VERSION_CODENAME"], capture_output=True, text=True)
        if host.stdout.strip() != codename:
            self.skipTest(f"this host is not Debian {codename}: its packages' dependencies would not be the image's")
        build = " ".join(args for ins, args in stages()[0] if ins == "RUN")
        runtime = " ".join(args for ins, args in stages()[-1] if ins == "RUN").split()
        for dev in re.findall(r"\b(lib[a-z0-9]+-dev)\b", build):
            depends = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", dev], capture_output=True, text=True).stdout
            names = [d.split()[0] for d in depends.split(",") if d.strip()]
            libs = [d for d in names if d.startswith("lib") and not d.endswith("-dev")]
            self.assertTrue(libs, f"{dev}: no run-time library among its dependencies")
            self.assertIn(libs[0], runtime, f"{dev}'s run-time library")


if __name__ == "__main__":
    unittest.main()
