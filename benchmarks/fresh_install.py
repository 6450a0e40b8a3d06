"""Time a fresh install: `make demo` or `.ci/run` from a clean clone, on a new Debian root with empty caches.

A run copies a prepared root folder (made once with debootstrap: a compiler, CMake, Python, PostgreSQL 15 without q3c,
the machine's pip set-up, nothing the project installs itself), clones the project at a git ref into it and runs the
command there as root, chrooted, in private network, PID and mount namespaces whose only way out is an HTTP proxy to
the package registries (Debian's and PyPI). The folders of the machine's Python and of the local package indexes its
pip set-up names are mounted read-only, as a new machine of this kind has them. Every output line is timestamped
into a log; the phases are read off the lines `make` echoes. Prints JSON: the wall time of each phase, the CPU time
(user and system) of the processes that ended, the machine's load average while it ran, the test summary line and
the exit status. Unlike a new machine, the run shares the disk and the cores with whatever else runs here: the
load it reports says how much.

Needs root, debootstrap (to prepare the root), unshare and mount (util-linux), and ip (iproute2).
"""

import argparse
import asyncio
import configparser
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = {"demo": "make demo", "ci": "bash .ci/run"}
# The line `make` echoes when a phase starts, per command; the set-up runs from the start.
PHASES = {
    "demo": [("database", r"-m db up\b"), ("question", r"-m ask\b")],
    "ci": [("smoke", r"^touch \.venv/\.installed$"), ("tests", r"^\S*python -m pytest\b")],
}
# What a new machine of this kind has before the project installs anything.
IMAGE_PACKAGES = [
    "build-essential", "cmake", "ninja-build", "git", "make", "python3", "python3-dev", "python3-venv",
    "postgresql-15", "postgresql-contrib", "iproute2", "ca-certificates", "procps", "curl", "util-linux", "passwd",
    "sudo", "locales",
]  # fmt: skip
REGISTRIES = {"pypi.org", "files.pythonhosted.org", "deb.debian.org"}
PROXY_PORT = 3128
EXAMPLES = """examples:
  python -m benchmarks.fresh_install --prepare /var/tmp/fresh/image
  python -m benchmarks.fresh_install demo --image /var/tmp/fresh/image --shared ../shared > demo.json
  python -m benchmarks.fresh_install ci --image /var/tmp/fresh/image --shared ../shared --ref main > ci.json
"""


class FreshInstallError(Exception):
    """The run cannot be set up (no root, no image, a tool missing)."""


def pip_local_folders() -> list[Path]:
    """The local folders this machine's pip set-up reads packages from (file:// indexes, find-links)."""
    folders = []
    config = configparser.ConfigParser()
    config.read([Path("/etc/pip.conf"), *Path("/etc/xdg/pip").glob("pip.conf"), Path.home() / ".config/pip/pip.conf"])
    for key in ("index-url", "extra-index-url", "find-links"):
        for value in config.get("global", key, fallback="").split():
            path = Path(value.removeprefix("file://"))
            while path.name in {"simple", ""} and path != path.parent:
                path = path.parent
            if path.is_absolute() and path.exists():
                folders.append(path)
    return folders


def python_home() -> Path:
    """The folder that holds the machine's Python (pyenv's root, or the prefix of the running interpreter)."""
    pyenv = os.environ.get("PYENV_ROOT")
    if pyenv and Path(sys.base_prefix).is_relative_to(pyenv):
        return Path(pyenv)
    return Path(sys.base_prefix)


def host_mounts() -> list[Path]:
    """Folders of the machine mounted read-only into each run: its Python and its local package indexes."""
    folders = [python_home(), *pip_local_folders()]
    return [f for f in dict.fromkeys(folders) if not str(f).startswith(("/usr", "/etc"))]


def prepare_image(image: Path, suite: str, mirror: str) -> None:
    """Make the root folder that every run copies: debootstrap, the packages a new machine has, pip's set-up."""
    if image.exists():
        raise FreshInstallError(f"{image} exists; remove it or pass another folder to --prepare")
    for tool in ("debootstrap", "chroot"):
        require_tool(tool)
    print(f"debootstrap {suite} into {image} (a few minutes)", file=sys.stderr)
    subprocess.run(["debootstrap", suite, str(image), mirror], check=True, stdout=subprocess.DEVNULL)
    # Services are not started inside the root; the project starts its own.
    policy = image / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    shutil.copy("/etc/resolv.conf", image / "etc/resolv.conf")
    subprocess.run(["mount", "-t", "proc", "proc", str(image / "proc")], check=True)
    try:
        chroot = ["chroot", str(image), "env", "DEBIAN_FRONTEND=noninteractive"]
        subprocess.run([*chroot, "apt-get", "update", "-qq"], check=True)
        install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *IMAGE_PACKAGES]
        subprocess.run([*chroot, *install], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*chroot, "apt-get", "clean"], check=True)
    finally:
        subprocess.run(["umount", str(image / "proc")], check=True)
    policy.unlink()
    for file in [Path("/etc/pip.conf"), *Path("/etc/xdg/pip").glob("*"), Path.home() / ".config/pip/pip.conf"]:
        if file.is_file():
            target = image / str(file).lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(file, target)
    for certificate in Path("/usr/local/share/ca-certificates").glob("*"):
        shutil.copy(certificate, image / "usr/local/share/ca-certificates")
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", image / "etc/ssl/certs/ca-certificates.crt")


def require_tool(name: str) -> None:
    if shutil.which(name) is None:
        raise FreshInstallError(f"'{name}' is not installed here")


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy `source` to `sink` until either side closes."""
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        sink.close()


async def serve_registry_proxy(path: str, allowed: set[str]) -> None:
    """An HTTP proxy on a Unix socket that connects only to the allowed hosts (CONNECT, or absolute-form for http)."""

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            line, _, rest = head.partition(b"\r\n")
            method, target, version = line.decode().split(" ")
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
            else:
                host, _, port = target.split("/")[2].partition(":")
                path_part = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
                rest = f"{method} {path_part} {version}\r\n".encode() + rest
            if host not in allowed:
                writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                writer.close()
                return
            up_reader, up_writer = await asyncio.open_connection(host, int(port or 80))
        except (OSError, ValueError, asyncio.IncompleteReadError):
            writer.close()
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            up_writer.write(rest)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    server = await asyncio.start_unix_server(handle, path)
    async with server:
        await server.serve_forever()


async def forward_port_to_socket(port: int, path: str) -> None:
    """Inside the private network: 127.0.0.1:port forwards to the proxy's Unix socket."""

    async def handle(reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(path)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def inside(root: Path, mounts: list[Path]) -> int:
    """PID 1 of the private namespaces: mount what the root needs, forward the proxy, run the command chrooted."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    subprocess.run(["mount", "--rbind", "/dev", str(root / "dev")], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(root / "dev/shm")], check=True)
    subprocess.run(["mount", "-t", "sysfs", "sysfs", str(root / "sys")], check=True)
    for folder in mounts:
        target = root / str(folder).lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(target)], check=True)
    socket_path = str(root / "run/registries.sock")
    threading.Thread(target=asyncio.run, args=(forward_port_to_socket(PROXY_PORT, socket_path),), daemon=True).start()
    pyenv = next((folder for folder in mounts if (folder / "shims").is_dir()), None)
    python_bin = [f"{pyenv}/shims", f"{pyenv}/bin"] if pyenv else []
    environment = {
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "CI": "true",
        "TERM": "dumb",
        "PATH": ":".join([*python_bin, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]),
        "PYTHONUNBUFFERED": "1",
        "DEBIAN_FRONTEND": "noninteractive",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_PROXY": f"http://127.0.0.1:{PROXY_PORT}",
    }
    if pyenv:
        environment["PYENV_ROOT"] = str(pyenv)
    command = (root / "work/ci/command").read_text()
    started = time.monotonic()
    status = subprocess.run(
        ["chroot", str(root), "bash", "-c", f"cd /work/ci/repo && {command}"],
        env=environment,
        stdin=subprocess.DEVNULL,
        check=False,
    ).returncode
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"FRESH-RUN: exit {status} wall {time.monotonic() - started:.1f} user {usage.ru_utime:.1f} "
        f"sys {usage.ru_stime:.1f}",
        flush=True,
    )
    return status


def prepare_run(image: Path, root: Path, ref: str, shared: Path, command: str) -> None:
    """Copy the image, clone the project at `ref`, copy the shared folder beside it, route apt through the proxy."""
    if root.exists():
        shutil.rmtree(root)
    subprocess.run(["cp", "-a", str(image), str(root)], check=True)
    clone = root / "work/ci/repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", ref], check=True)
    shutil.copytree(shared, root / "work/ci/shared")
    proxy = f"http://127.0.0.1:{PROXY_PORT}"
    (root / "etc/apt/apt.conf.d/90registries").write_text(
        f'Acquire::http::Proxy "{proxy}"; Acquire::https::Proxy "{proxy}";\n'
    )
    (root / "work/ci/command").write_text(command)


def sample_load(samples: list[float], stop: threading.Event) -> None:
    while not stop.wait(15):
        samples.append(float(Path("/proc/loadavg").read_text().split()[0]))


def phase_times(which: str, lines: list[tuple[float, str]], end: float) -> dict[str, float]:
    """Wall seconds of each phase, from the first line that starts it to the start of the next (or the end)."""
    starts = [("setup", 0.0)]
    patterns = [(name, re.compile(pattern)) for name, pattern in PHASES[which]]
    for name, pattern in patterns:
        found = next((t for t, line in lines if pattern.search(line) and t >= starts[-1][1]), None)
        if found is None:
            break
        starts.append((name, found))
    ends = [start for _, start in starts[1:]] + [end]
    return {name: round(stop - start, 1) for (name, start), stop in zip(starts, ends, strict=True)}


def run(which: str, image: Path, workdir: Path, ref: str, shared: Path, keep: bool) -> dict:
    """One timed fresh run; returns its JSON record."""
    for tool in ("unshare", "mount", "ip", "chroot", "git"):
        require_tool(tool)
    if not (image / "usr/bin").is_dir():
        raise FreshInstallError(f"no prepared root at {image}; make one with --prepare {image}")
    if not shared.is_dir():
        raise FreshInstallError(f"no shared folder at {shared} (the folder holding alerce-t2s/)")
    root = workdir / which
    workdir.mkdir(parents=True, exist_ok=True)
    prepare_run(image, root, ref, shared, COMMANDS[which])
    commit = subprocess.run(
        ["git", "-C", str(root / "work/ci/repo"), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    allowed = REGISTRIES | debian_hosts(image)
    socket_path = str(root / "run/registries.sock")
    threading.Thread(target=asyncio.run, args=(serve_registry_proxy(socket_path, allowed),), daemon=True).start()
    while not Path(socket_path).exists():
        time.sleep(0.1)
    load: list[float] = []
    stop = threading.Event()
    threading.Thread(target=sample_load, args=(load, stop), daemon=True).start()
    mounts = [str(folder) for folder in host_mounts()]
    inner = [sys.executable, "-m", "benchmarks.fresh_install", "--inside", str(root), *mounts]
    unshare = ["unshare", "--net", "--pid", "--fork", "--mount", "--propagation", "private", *inner]
    lines: list[tuple[float, str]] = []
    started = time.monotonic()
    log = workdir / f"{which}.log"
    with (
        log.open("w") as out,
        subprocess.Popen(
            unshare, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
        ) as process,
    ):
        for line in process.stdout:
            elapsed = time.monotonic() - started
            lines.append((elapsed, line.rstrip("\n")))
            out.write(f"{elapsed:8.1f} {line}")
            out.flush()
            if re.search(r"-m pytest|passed|FRESH-RUN|touch \.venv", line):
                print(f"[{elapsed:6.0f} s] {line.rstrip()}", file=sys.stderr)
    wall = time.monotonic() - started
    stop.set()
    final = next((line for _, line in reversed(lines) if line.startswith("FRESH-RUN:")), "")
    numbers = dict(re.findall(r"(exit|user|sys) (\S+)", final))
    summary = next((line for _, line in reversed(lines) if re.search(r"\d+ passed", line)), None)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "command": COMMANDS[which],
        "commit": commit,
        "exit": int(numbers.get("exit", process.returncode or 1)),
        "wall_s": round(wall, 1),
        "phases_s": phase_times(which, lines, wall),
        "cpu_s": {"user": float(numbers.get("user", "nan")), "system": float(numbers.get("sys", "nan"))},
        "load_average": {
            "median": round(statistics.median(load), 2) if load else None,
            "max": max(load, default=None),
        },
        "tests": summary.strip("= ") if summary else None,
        "log": str(log),
        "cores": os.cpu_count(),
    }


def debian_hosts(image: Path) -> set[str]:
    """The hosts of the image's apt sources (the Debian mirrors the run may reach)."""
    text = "".join(p.read_text() for p in (image / "etc/apt").rglob("*.sources") if p.is_file())
    text += "".join(p.read_text() for p in (image / "etc/apt").rglob("*.list") if p.is_file())
    return set(re.findall(r"https?://([^/\s:]+)", text))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.fresh_install",
        description=__doc__.split("\n\n")[0],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", nargs="?", choices=sorted(COMMANDS), help="what to time: make demo, or bash .ci/run")
    parser.add_argument("--image", type=Path, help="the prepared root folder every run copies (see --prepare)")
    parser.add_argument("--prepare", type=Path, metavar="DIR", help="make the root folder with debootstrap, then exit")
    parser.add_argument("--suite", default="bookworm", help="Debian release of --prepare (default: %(default)s)")
    parser.add_argument("--mirror", default="http://deb.debian.org/debian", help="Debian mirror of --prepare")
    parser.add_argument("--ref", default="HEAD", help="git ref of this repository to clone (default: %(default)s)")
    parser.add_argument(
        "--shared",
        type=Path,
        help="the folder copied beside the clone as ../shared (holding alerce-t2s/ and alerce/); "
        "default: the parent of $ALERCE_T2S_DATA",
    )
    parser.add_argument(
        "--workdir", type=Path, default=Path("/var/tmp/alerce-t2s-fresh"), help="where runs and logs go"
    )
    parser.add_argument("--keep", action="store_true", help="keep the run's root folder afterwards")
    parser.add_argument("--inside", nargs="+", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.inside:
        return inside(Path(args.inside[0]), [Path(p) for p in args.inside[1:]])
    try:
        if os.geteuid() != 0:
            raise FreshInstallError("preparing an image and a fresh run need root (chroot, namespaces, mounts)")
        if args.prepare:
            prepare_image(args.prepare, args.suite, args.mirror)
            return 0
        if not args.run or not args.image:
            raise FreshInstallError("name a run (demo or ci) and its --image, or --prepare DIR")
        data = os.environ.get("ALERCE_T2S_DATA")
        shared = args.shared or (Path(data).resolve().parent if data else None)
        if shared is None:
            raise FreshInstallError("pass --shared (the folder holding alerce-t2s/) or set ALERCE_T2S_DATA")
        record = run(args.run, args.image, args.workdir, args.ref, shared, args.keep)
    except (FreshInstallError, subprocess.CalledProcessError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(record, indent=2))
    return 0 if record["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
