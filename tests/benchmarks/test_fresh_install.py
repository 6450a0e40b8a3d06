"""The fresh-install timer: phases read off make's echoed lines, hosts of the image's apt sources, clear refusals."""

import pytest

from benchmarks.fresh_install import debian_hosts, main, phase_times


def test_phases_of_make_demo_run_from_one_echoed_command_to_the_next():
    lines = [
        (0.1, "PYTHON=python3 VENV=.venv bash scripts/setup.sh"),
        (118.2, "touch .venv/.installed"),
        (118.2, ".venv/bin/python -m db up"),
        (141.9, "postgresql://alerce_reader@127.0.0.1:54329/alerce"),
        (142.0, '.venv/bin/python -m ask "How many objects have more than 50 detections?"'),
    ]
    assert phase_times("demo", lines, 151.9) == {"setup": 118.2, "database": 23.8, "question": 9.9}


def test_phases_of_ci_split_at_the_installed_mark_and_the_test_command():
    lines = [
        (5.0, "building llama-cpp-python"),
        (155.0, "touch .venv/.installed"),
        (160.0, "smoke: the wheel's server came up"),
        (163.0, ".venv/bin/python -m pytest -n auto"),
    ]
    assert phase_times("ci", lines, 458.6) == {"setup": 155.0, "smoke": 8.0, "tests": 295.6}


def test_a_run_that_stops_in_its_set_up_has_only_the_set_up_phase():
    assert phase_times("ci", [(1.0, "error: pip failed")], 30.0) == {"setup": 30.0}


def test_the_run_may_reach_the_mirrors_of_the_image_apt_sources(tmp_path):
    sources = tmp_path / "etc/apt/sources.list.d"
    sources.mkdir(parents=True)
    (sources / "debian.sources").write_text(
        "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n\n"
        "Types: deb\nURIs: https://security.debian.org:443/debian-security\n"
    )
    assert debian_hosts(tmp_path) == {"deb.debian.org", "security.debian.org"}


@pytest.mark.parametrize("argv", [[], ["demo"], ["demo", "--image", "{tmp}/none", "--shared", "{tmp}"]])
def test_a_run_that_cannot_start_fails_in_one_line(argv, tmp_path, capsys):
    assert main([arg.format(tmp=tmp_path) for arg in argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
