"""A throwaway PostgreSQL cluster for the tests: ``initdb`` in a temporary folder,
listening only on a Unix socket in that folder, stopped and removed at the end.

The binaries are Debian's (``/usr/lib/postgresql/VERSION/bin``, the ``postgresql``
package that ``.ci/run`` installs). ``initdb`` and ``postgres`` refuse to run as root,
which CI is: then they run as the package's ``postgres`` user (``runuser``) in a folder
it owns. Without PostgreSQL (or psycopg) the tests that need it skip, saying why;
under CI (the ``CI`` variable set) they fail instead: CI must run them.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

START_SECONDS = 60
"""How long initdb, the start and the stop may each take before the test fails."""


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def missing() -> str | None:
    """Why the PostgreSQL tests cannot run here (``None``: they can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"psycopg is not installed (the postgres extra): {exc}"
    if _bin_dir() is None:
        return "PostgreSQL is not installed (apt-get install postgresql; .ci/run does)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser to start PostgreSQL as its own user"
    return None


def need_postgres() -> None:
    """Skip the calling test (fail it under CI) when PostgreSQL cannot run here."""
    why = missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests: {why}")
        pytest.skip(why)


class Cluster:
    """A running throwaway cluster: :meth:`database` makes a fresh database and gives
    its URL."""

    def __init__(self) -> None:
        bindir = _bin_dir()
        assert bindir is not None
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="tokaido-pg-"))
        self.data = self.root / "data"
        self.user: list[str] = []
        if os.geteuid() == 0:
            import pwd

            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.user = ["runuser", "-u", "postgres", "--"]
        os.chmod(self.root, 0o755)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-sync", "--no-instructions")
        options = (f"-k {self.root} -c listen_addresses='' -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=300 -c shared_buffers=32MB")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w",
                  "-t", str(START_SECONDS), "-o", options, "start")
        self.host = str(self.root)

    def _run(self, program: str, *args: str) -> None:
        try:
            subprocess.run([*self.user, str(self.bindir / program), *args], check=True,
                           cwd=self.root, capture_output=True, text=True,
                           timeout=START_SECONDS)
        except subprocess.CalledProcessError as exc:
            log = self.root / "log"
            raise AssertionError(f"{program} failed: {exc.stderr.strip()} "
                                 f"{log.read_text() if log.exists() else ''}") from None

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@/{dbname}?host={self.host}"

    def database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """The session's throwaway cluster (skips, or fails under CI, without one)."""
    need_postgres()
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """The URL of a fresh database of the session's cluster."""
    return pg_cluster.database()
