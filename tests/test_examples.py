"""The adapter examples run offline, end to end, and say so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "CREWAI_DISABLE_TELEMETRY": "true",
    "OTEL_SDK_DISABLED": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "ANONYMIZED_TELEMETRY": "False",
}
EXAMPLES = {
    "langchain_agent.py": ("langchain", "langchain example OK"),
    "autogen_agent.py": ("autogen_agentchat", "autogen example OK"),
    "crewai_crew.py": ("crewai", "crewai example OK"),
    "llamaindex_agent.py": ("llama_index.core", "llamaindex example OK"),
}


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(EXAMPLES))
def test_example_runs_offline(script, tmp_path):
    framework, done = EXAMPLES[script]
    pytest.importorskip(framework, reason=f"{script} needs its framework (pip install 'deltacore[all]')")
    env = {**os.environ, **OFFLINE, "HOME": str(tmp_path)}  # no user config, no caches
    env.pop("OPENAI_API_KEY", None)
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert done in result.stdout
    assert "Traceback" not in result.stderr
