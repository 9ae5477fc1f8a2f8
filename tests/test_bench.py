"""Every benchmark runs to its end at its smallest size, so none rots unnoticed.

The timings they print are not checked here (speed is measured in bench/, side by
side); what is checked is that each one finishes and reports every row it promises.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.render


def run_bench(script: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PE_SCENE_PLUGINS": "tests.plugin_scenes"}
    return subprocess.run(
        [sys.executable, f"bench/{script}", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def bench(script: str, *args: str) -> str:
    run = run_bench(script, *args)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_bench_pe_math_checks_the_loops_against_pe_math():
    out = bench("bench_pe_math.py", "--positions", "32", "--dims", "8", "--repeat", "1")
    assert "PE table 32x8" in out and "cosine matrix 32x32" in out
    assert "PE table 128x16 with pe_math" in out


def test_bench_render_compares_the_driver_with_plain_manim():
    # espeak: the rows are what is checked, and a neural voice costs more than the drawing
    args = ("--quality", "l", "--scenes", "tiny", "--jobs", "1", "--voice", "espeak")
    out = bench("bench_render.py", *args)
    for row in ("plain sequential manim", "real time", "unchanged re-run", "one knob (base=500)"):
        assert row in out
    assert "re-rendered: tiny" in out  # tiny reads base
    for preset in ("ultrafast", "veryfast", "faster", "medium"):
        assert f"  {preset}" in out


def test_bench_beats_redraws_the_one_beat_a_recording_or_a_reworded_line_changed_and_watches(
    run_speech,
):
    # the lesson's voice (`--voice espeak` would ignore the recording), and the speech other
    # tests made of tiny's lines
    args = ("--quality", "l", "--scene", "tiny", "--reword", "tiny", "--jobs", "1")
    out = bench("bench_beats.py", *args, "--speech", str(run_speech))
    for row in ("first render", "whole clip again", "one beat re-recorded", "one line reworded"):
        assert row in out
    assert out.count("drew 1 of 2 beats") == 3, out  # re-recorded, reworded, reworded again
    assert "watch: line two saved, new clip" in out, out  # the watch saw the save


def test_bench_voice_times_speech_and_listening_with_the_error_per_clip():
    out = bench("bench_voice.py", "--quality", "l", "--lang", "en", "--scenes", "tiny")
    for row in ("TTS from an empty cache", "cached, unchanged re-run", "listen --all"):
        assert row in out
    assert "tiny" in out and "over 2 beats" in out and "whole lesson" in out


def test_bench_voice_hears_every_line_without_drawing():
    out = bench("bench_voice.py", "--lines", "--lang", "zh", "--scenes", "tiny")
    assert "lines (zh, kokoro zf_xiaobei speed 1.1)" in out
    assert re.search(r"tiny +[\d.]+% +[\d.]+% with tones", out), out
    assert "TTS from an empty cache on" in out and "lines above 15%: 0" in out


def test_bench_farm_sets_plain_manim_local_jobs_and_a_cluster_side_by_side():
    out = bench("bench_farm.py", "--quality", "l", "--scenes", "tiny", "--workers", "1")
    for row in (
        "plain sequential manim",
        "render.py --jobs 1, first run (no timings)",
        "render.py --scheduler (LocalCluster 1x1 thread)",
        "empty Dask task round trip",
        "one job (tiny): cluster",
        "scenes split on the second run: none",
    ):
        assert row in out


def test_still_runs_tables_each_chapter_in_both_languages_and_fails_over_its_limit():
    out = bench("still_runs.py", "--scenes", "tiny", "--fps", "5")
    assert "| tiny | en |" in out and "| tiny | zh |" in out, out
    assert "longest still run:" in out and "(over" not in out
    over = run_bench(
        "still_runs.py", "--scenes", "tiny", "--langs", "zh", "--fps", "5", "--most", "0.1"
    )
    assert over.returncode == 1 and "(over 0.1 s)" in over.stdout, over.stdout
    wrong = run_bench("still_runs.py", "--scenes", "tiny", "--langs", "fr")
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == "error: --langs 'fr': give en, zh or en,zh"
