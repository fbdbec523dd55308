"""The configuration of ``feltroom serve`` (issue 22): a TOML file, ``FELTROOM_<SECTION>__<KEY>``
variables and flags, flag > environment > file > default, validated by pydantic-settings;
``feltroom config show`` with each value's source and the secrets masked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from feltroom.cli import SERVE_FLAGS, main
from feltroom.ops.config import ConfigError, flag_name, load_settings, setting_names

FILE = """
[server]
port = 9000
host = "0.0.0.0"
db = "postgresql+psycopg://room:s3cret@db.internal:5432/room"
forwarded_allow_ips = ["10.0.0.1", "192.168.0.0/16"]

[room]
house_bots = 2
disconnect_grace = 30

[accounts]
signup_exempt = []
argon2_memory_kib = 32768
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "feltroom.toml"
    path.write_text(FILE)
    return path


def test_a_flag_beats_the_environment_which_beats_the_file_which_beats_the_default(
    config: Path,
) -> None:
    settings, sources = load_settings(
        {"server": {"port": 7000}},
        config,
        {
            "FELTROOM_SERVER__PORT": "8080",
            "FELTROOM_ROOM__HOUSE_BOTS": "5",
            "FELTROOM_PASSWORD": "x",
        },
    )
    assert settings.server.port == 7000
    assert sources["server", "port"] == "flag --port"
    assert settings.room.house_bots == 5
    assert sources["room", "house_bots"] == "env FELTROOM_ROOM__HOUSE_BOTS"
    assert settings.server.host == "0.0.0.0"
    assert sources["server", "host"] == f"file {config}"
    assert settings.room.disconnect_grace == 30.0
    assert settings.accounts.signup_exempt == frozenset()
    assert settings.server.forwarded_allow_ips == ("10.0.0.1", "192.168.0.0/16")
    assert settings.room.bot_style == "tag"
    assert sources["room", "bot_style"] == "default"
    environment_list = load_settings(
        None, None, {"FELTROOM_ACCOUNTS__SIGNUP_EXEMPT": "10.0.0.7, ::1"}
    )
    assert environment_list[0].accounts.signup_exempt == frozenset({"10.0.0.7", "::1"})


def test_R_HOME_1_the_wallet_currencies_of_home_games(tmp_path: Path) -> None:
    assert load_settings(None, None, {})[0].home.currencies == ()
    path = tmp_path / "home.toml"
    path.write_text("[home]\ncurrencies = ['play', 'USD']\nrake_percent = 4\n")
    settings = load_settings(None, path, {})[0]
    assert (settings.home.currencies, settings.home.rake_percent) == (("PLAY", "USD"), 4)
    environ = {"FELTROOM_HOME__CURRENCIES": "EUR, PLAY"}
    assert load_settings(None, None, environ)[0].home.currencies == ("EUR", "PLAY")


@pytest.mark.parametrize(
    ("text", "environ", "message"),
    [
        ("[server]\nprot = 1\n", {}, "unknown setting [server] prot; the settings of [server] are"),
        ("[sever]\n", {}, "unknown section [sever]; sections are server, log, room"),
        ("[server]\nport = 70000\n", {}, "[server] port in"),
        ("[log]\nformat = 'xml'\n", {}, "expected one of 'text' or 'json'"),
        ("[accounts]\nsignup_exempt = ['localhost']\n", {}, "'localhost' is not an IP address"),
        ("[home]\ncurrencies = ['XYZ']\n", {}, "'XYZ' is not a wallet currency of the room"),
        ("[room\n", {}, "is not valid TOML"),
        ("", {"FELTROOM_ROOM__HOUSE_BOT": "1"}, "unknown setting FELTROOM_ROOM__HOUSE_BOT"),
        ("", {"FELTROOM_ROOM__HOUSE_BOTS": "many"}, "FELTROOM_ROOM__HOUSE_BOTS = 'many'"),
    ],
)
def test_an_unknown_or_invalid_setting_is_named_with_what_is_valid(
    tmp_path: Path, text: str, environ: dict[str, str], message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_settings(None, path, environ)
    assert message in str(refused.value)


def test_config_show_gives_each_value_its_source_and_masks_secrets(
    config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FELTROOM_SERVER__BROKER", "redis://:brokerpw@redis:6379/0")
    monkeypatch.setenv("FELTROOM_LOG__LEVEL", "debug")
    assert main(["config", "show", "--config", str(config), "--json"]) == 0
    out = capsys.readouterr().out
    assert "s3cret" not in out
    assert "brokerpw" not in out
    shown = json.loads(out)
    assert shown["server"]["db"] == {
        "value": "postgresql+psycopg://room:***@db.internal:5432/room",
        "source": f"file {config}",
    }
    assert shown["server"]["broker"]["value"] == "redis://:***@redis:6379/0"
    assert shown["log"]["level"] == {"value": "debug", "source": "env FELTROOM_LOG__LEVEL"}
    assert shown["protocol"]["rate"] == {"value": 20.0, "source": "default"}
    assert {(section, key) for section in shown for key in shown[section]} == set(setting_names())
    assert main(["config", "show", "--config", str(config)]) == 0
    text = capsys.readouterr().out
    assert f"port = 9000  # file {config}; env FELTROOM_SERVER__PORT" in text
    assert "s3cret" not in text


def test_config_show_refuses_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[room]\nbot_style = 'wild'\n")
    assert main(["config", "show", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "[room] bot_style" in err
    assert "'random', 'station' or 'tag'" in err


def test_each_flag_is_named_in_the_sources_as_it_is_written() -> None:
    for flag, (section, key, *_) in SERVE_FLAGS.items():
        assert flag_name(section, key) == flag
    settings, sources = load_settings({"log": {"level": "debug"}}, None, {})
    assert settings.log.level == "debug"
    assert sources["log", "level"] == "flag --log-level"


def test_serve_help_shows_every_option_with_its_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in [*SERVE_FLAGS, "--config"]:
        assert flag in text
    assert text.count("(default: ") >= len(SERVE_FLAGS) + 1
    for shown in (
        "address to listen on (default: 127.0.0.1)",
        "port to listen on (default: 8000)",
        "(default: sqlite:///data/feltroom.sqlite3)",
        "house bots per table (default: 3)",
        "(default: 127.0.0.1,::1)",
        "(default: tag)",
        "(default: info)",
        "(default: text)",
    ):
        assert shown in text


def test_the_file_reaches_the_room(
    config: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``serve --config`` hands the application and uvicorn (neither is started)."""
    import feltroom.server

    seen: dict[str, object] = {}

    def create_app(runtime: object, **options: object) -> str:
        seen.update(options, runtime=runtime)
        return "app"

    def serve(app: object, host: str, port: int, **options: object) -> None:
        seen.update(options, host=host, port=port)

    monkeypatch.setattr(feltroom.server, "create_app", create_app)
    monkeypatch.setattr(feltroom.server, "serve", serve)
    monkeypatch.setenv("FELTROOM_PROTOCOL__CHAT_RATE", "0.5")
    assert main(["serve", "--config", str(config), "--db", db_url, "--metrics-port", "9100"]) == 0
    assert (seen["host"], seen["port"], seen["metrics_port"]) == ("0.0.0.0", 9000, 9100)
    assert seen["forwarded_allow_ips"] == ("10.0.0.1", "192.168.0.0/16")
    assert seen["metrics_allow"] == ("127.0.0.1", "::1")
    runtime = seen["runtime"]
    assert runtime.settings.house_bots == 2  # type: ignore[attr-defined]
    assert runtime.settings.disconnect_grace == 30.0  # type: ignore[attr-defined]
    assert runtime.accounts.hasher.memory_cost == 32768  # type: ignore[attr-defined]
    assert seen["limits"].signup_exempt == frozenset()  # type: ignore[attr-defined]
    assert seen["hub_settings"].chat_rate == 0.5  # type: ignore[attr-defined]
