"""`agent-memory mcp --http` end to end, driven by the official MCP Python
client (`mcp` on PyPI) over Streamable HTTP: the real binary, a real memory
root, the token the server printed."""

import os
import re
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[3]
BINARY = Path(os.environ.get("AGENT_MEMORY_BIN", REPO / "target" / "debug" / "agent-memory"))
PROJECT = "/home/dev/src/my-app"
NOW = "2026-05-30T09:15:00+02:00"
NOTES = "projects/my-app-f5485506/notes"


@pytest.fixture()
def server(tmp_path):
    """A running `mcp --http` on a fresh root: (root, url, token)."""
    assert BINARY.is_file(), f"{BINARY} is missing: run `cargo build -p agent-memory-cli` (or set AGENT_MEMORY_BIN)"
    root = tmp_path / "memory"
    process = subprocess.Popen(
        [str(BINARY), "--root", str(root), "--project", PROJECT, "--semantic", "off", "mcp", "--http"],
        env={**os.environ, "AGENT_MEMORY_NOW": NOW, "AGENT_MEMORY_DISABLE": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        first = process.stdout.readline()
        match = re.fullmatch(r"(http://127\.0\.0\.1:\d+/mcp) Authorization: Bearer ([0-9a-f]{48})\n", first)
        assert match, first
        yield root, match.group(1), match.group(2)
    finally:
        process.terminate()
        process.wait()


@asynccontextmanager
async def session(url: str, token: str, roots: list[str] | None = None):
    """A session; with `roots`, the client declares the roots capability
    and answers `roots/list` with these URIs."""
    callback = None
    if roots is not None:

        async def callback(context):
            return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in roots])

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, list_roots_callback=callback) as s:
                yield s, await s.initialize()


def text_of(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    return result.content[0].text


def test_lists_and_calls_every_tool_over_http(server):
    root, url, token = server

    async def main():
        async with session(url, token) as (s, init):
            assert init.server_info.name == "agent-memory"
            tools = [t.name for t in (await s.list_tools()).tools]
            assert tools == [
                "memory_write", "memory_read", "memory_search", "memory_edit", "memory_delete",
                "memory_rename", "memory_history", "memory_restore", "memory_refresh",
                "memory_batch", "memory_consolidate",
            ]
            calls = [
                ("memory_write", {"target": "note", "name": "deploy", "content": "Deploy with `make ship`."}),
                ("memory_read", {"source": "note", "name": "deploy"}),
                ("memory_search", {"query": "ship"}),
                ("memory_edit", {"target": "note", "name": "deploy", "old_text": "make ship", "new_text": "make release"}),
                ("memory_history", {"target": "note", "name": "deploy"}),
                ("memory_restore", {"version": "v2"}),
                ("memory_refresh", {"name": "deploy"}),
                ("memory_rename", {"name": "deploy", "new_name": "shipping"}),
                ("memory_batch", {"changes": [{"tool": "memory_write", "arguments": {"target": "note", "name": "extra", "content": "x"}}]}),
                ("memory_delete", {"name": "extra"}),
                ("memory_consolidate", {}),
            ]
            assert sorted(name for name, _ in calls) == sorted(tools)
            texts = {}
            for name, arguments in calls:
                result = await s.call_tool(name, arguments)
                assert not result.is_error, (name, result.content)
                texts[name] = text_of(result)
            assert texts["memory_read"] == "Deploy with `make ship`.\n"
            assert "deploy.md  [matched: ship]" in texts["memory_search"]
            assert "v2" in texts["memory_history"] and "v1" in texts["memory_history"]
            resources = (await s.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["memory://context"]
            prompts = (await s.list_prompts()).prompts
            assert [p.name for p in prompts] == ["memory", "consolidate"]

    anyio.run(main)
    # v2 is the content before the edit: the restore put `make ship` back.
    assert (root / NOTES / "shipping.md").read_text() == "Deploy with `make ship`.\n"
    assert not (root / NOTES / "extra.md").exists()


def test_eight_clients_two_hundred_calls_each_lose_no_write(server):
    root, url, token = server
    clients, calls = 8, 200

    async def client(i: int):
        async with session(url, token) as (s, _):
            for j in range(calls):
                result = await s.call_tool(
                    "memory_write", {"target": "note", "name": f"client-{i}", "content": f"- c{i} w{j}\n"}
                )
                assert not result.is_error, result.content

    async def main():
        async with anyio.create_task_group() as group:
            for i in range(clients):
                group.start_soon(client, i)

    anyio.run(main)
    for i in range(clients):
        lines = (root / NOTES / f"client-{i}.md").read_text().splitlines()
        assert [line for line in lines if line] == [f"- c{i} w{j}" for j in range(calls)], i


def test_a_request_without_the_token_is_refused_and_changes_nothing(server):
    root, url, _ = server
    write = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "memory_write", "arguments": {"target": "long_term", "content": "- no"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    refused = httpx2.post(url, json=write, headers=headers)
    assert refused.status_code == 401 and refused.json()["error"] == "no-token"
    assert not any(h.lower().startswith("access-control-") for h in refused.headers)
    assert not (root / "MEMORY.md").exists()


def test_each_session_works_on_the_project_its_roots_name(server, tmp_path):
    root, url, token = server
    alpha, beta = tmp_path / "src" / "alpha", tmp_path / "src" / "beta"
    for project in (alpha, beta):
        (project / ".git").mkdir(parents=True)
        (project / "lib").mkdir()

    async def main():
        # Two clients at once, each rooted in its own project (beta's root a
        # subdirectory: the project is its git root, as for the CLI), and one
        # whose root names no directory here, which keeps the default project.
        async with (
            session(url, token, roots=[alpha.as_uri()]) as (a, _),
            session(url, token, roots=[(beta / "lib").as_uri()]) as (b, _),
            session(url, token, roots=[(tmp_path / "elsewhere").as_uri()]) as (c, _),
        ):
            for s, item in ((a, "alpha task"), (b, "beta task"), (c, "default task")):
                result = await s.call_tool("memory_write", {"target": "scratchpad", "content": f"- [ ] {item}"})
                assert not result.is_error, result.content
            reads = [text_of(await s.call_tool("memory_read", {"source": "scratchpad"})) for s in (a, b, c)]
            assert [r.strip() for r in reads] == ["- [ ] alpha task", "- [ ] beta task", "- [ ] default task"]
            # MEMORY.md is every project's: each session sees what another wrote.
            assert not (await a.call_tool("memory_write", {"target": "long_term", "content": "- shared fact"})).is_error
            assert "- shared fact" in text_of(await b.call_tool("memory_read", {"source": "long_term"}))

    anyio.run(main)
    # (Each file's text without its end of line, which this test is not about.)
    pads = {path.parent.name.rsplit("-", 1)[0]: path.read_text().strip() for path in root.glob("projects/*/SCRATCHPAD.md")}
    assert pads == {"alpha": "- [ ] alpha task", "beta": "- [ ] beta task", "my-app": "- [ ] default task"}
