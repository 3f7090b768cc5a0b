"""A forget whose transaction PostgreSQL aborts to break a deadlock is run again: the deadlock is
recognised from a real PostgreSQL deadlock (two transactions locking two rows in opposite order),
and nothing else is taken for one."""

from __future__ import annotations

import os
import threading
import uuid

import pytest
from sqlalchemy import create_engine, text

from deltacore.storage.errors import is_deadlock, translate_backend_errors

POSTGRES_URL = os.environ.get("DELTACORE_TEST_POSTGRES_URL")


def _deadlock_error() -> BaseException:
    engine = create_engine(POSTGRES_URL)
    table = f"dc_test_deadlock_{uuid.uuid4().hex[:8]}"
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {table} (id int PRIMARY KEY, v int)"))
        conn.execute(text(f"INSERT INTO {table} VALUES (1, 0), (2, 0)"))
    both_locked, errors = threading.Barrier(2), []

    def cross(first: int, second: int) -> None:
        try:
            with translate_backend_errors("writing"), engine.begin() as conn:
                conn.execute(text(f"UPDATE {table} SET v = v + 1 WHERE id = {first}"))
                both_locked.wait(timeout=10)
                conn.execute(text(f"UPDATE {table} SET v = v + 1 WHERE id = {second}"))
        except Exception as exc:  # noqa: BLE001 - the victim's error is what is under test
            errors.append(exc)

    threads = [threading.Thread(target=cross, args=(1, 2)), threading.Thread(target=cross, args=(2, 1))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP TABLE {table}"))
        engine.dispose()
    assert len(errors) == 1, errors  # PostgreSQL aborts one victim; the other commits
    return errors[0]


@pytest.mark.skipif(not POSTGRES_URL, reason="set DELTACORE_TEST_POSTGRES_URL")
def test_a_real_postgres_deadlock_is_recognised_as_one():
    error = _deadlock_error()
    assert is_deadlock(error)


def test_other_errors_are_not_taken_for_a_deadlock():
    assert not is_deadlock(ValueError("deadlock detected"))
    assert not is_deadlock(RuntimeError("writing: database error"))
