"""``benchmarks/serve_load.py``, the load benchmark of ``tokaido serve``, runs a tiny load
on loopback and reports every figure (timings are not checked: they depend on the
machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_serve_load_benchmark_reports_every_figure() -> None:
    """2 tables with 2 clients each (the other 2 seats bots) for at most 5 s: one JSON
    document, one run of the new server, decisions played, no error."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "serve_load.py"), "--tables", "2",
         "--clients", "2", "--seconds", "5", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["machine"]["cpus"] >= 1
    [run] = doc["runs"]
    config = run["config"]
    assert (config["server"], config["seats"], config["tables"],
            config["clients_per_table"], config["bot_seats_per_table"]) == ("new", "each", 2,
                                                                             2, 2)
    assert set(run["requests"]) == {"GET first", "GET ready", "GET woken", "GET timed out",
                                    "POST action"}
    for row in [*run["requests"].values(), run["update_latency"]]:
        assert {"count", "per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms"} <= set(row)
    assert run["requests"]["GET first"]["count"] == 4
    post = run["requests"]["POST action"]
    assert post["count"] == run["decisions"] > 0
    assert post["p50_ms"] is not None and post["bytes_per_answer"] > 0
    assert run["update_latency"]["count"] > 0
    assert run["decisions_per_s"] > 0 and run["seq_advanced"] > 0
    assert 0 <= run["games_finished"] <= 2
    assert run["errors"] == {} and run["client_crash"] is None
    assert run["server_process"]["peak_rss_mib"] > 0
    assert run["server_process"]["processes"] == 1
    assert 0 < run["elapsed_s"] < 30  # bounded: --seconds 5


def test_the_sections_benchmark_accounts_for_the_server_cpu() -> None:
    """``benchmarks/serve_sections.py`` on 2 tables for at most 3 s: every section is
    reported, none negative but the remainder's clock noise, and together they are the
    server's CPU time from its first move on."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "serve_sections.py"), "--tables", "2",
         "--seconds", "3", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["decisions"] > 0
    sections = doc["sections_ms_per_decision"]
    assert len(sections) == 12 and "everything else (HTTP, asyncio, threads)" in sections
    assert "garbage collection" in sections
    assert all(ms >= 0 for label, ms in sections.items() if not label.startswith("every"))
    assert sections["the move (decode, apply, checks)"] > 0
    assert sections["the scenes (scene_json)"] > 0
    assert abs(sum(sections.values()) - doc["from_first_move_ms_per_decision"]) < 0.01
