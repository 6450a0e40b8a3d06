"""``/metrics`` in Prometheus' text format: requests, question stages, LM tokens and cost, queue, pools, engine errors.

Requests and pool use are this process's (each web process is scraped on its own, as Prometheus does); the question
stages, tokens, cost, queue and engine errors come from the state database, so they count every worker on every
machine. On a loopback server without a token the endpoint is open; otherwise it answers only a request carrying
the metrics token (``Authorization: Bearer TOKEN``, ``--metrics-token-file``), and is not there (404) without one.
"""

from __future__ import annotations

import hmac
import math
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool

from serve.settings import is_loopback
from serve.state.timings import BUCKETS_S

__all__ = ["Metrics", "MetricsEndpoint"]

_PATH = "/metrics"
_ENGINE_ERRORS_SQL = """
SELECT kind, count(*) FROM (
    SELECT attempt->>'error_kind' AS kind
    FROM workbench.answers, jsonb_array_elements(record->'answer'->'attempts') attempt
    WHERE jsonb_typeof(record->'answer'->'attempts') = 'array'
    UNION ALL
    SELECT record->'answer'->>'error_kind' FROM workbench.answers
    WHERE jsonb_typeof(record->'answer'->'attempts') <> 'array' OR record->'answer'->'attempts' = '[]'::jsonb
) failed WHERE kind IS NOT NULL GROUP BY 1
"""
"""Failed executions: each attempt of an answer, or the answer itself when it records none (SQL run by hand)."""


class Metrics:
    """The registry of one web process, with the collector that reads the workbench's shared numbers."""

    def __init__(self, bench: Any) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "workbench_http_requests", "HTTP requests by route and status", ["route", "status"], registry=self.registry
        )
        self.request_seconds = Counter(
            "workbench_http_request_seconds",
            "Seconds spent answering HTTP requests, by route",
            ["route"],
            registry=self.registry,
        )
        self.registry.register(_WorkbenchCollector(bench))

    def render(self) -> bytes:
        """The text format of every metric."""
        return generate_latest(self.registry)


class MetricsEndpoint:
    """ASGI middleware: count every request by route and status, and answer ``GET /metrics`` (see the module)."""

    def __init__(self, app: Any, *, metrics: Metrics, host: str, token: str | None, metrics_token: str | None) -> None:
        self.app = app
        self.metrics = metrics
        self.metrics_token = metrics_token
        self.open_without_token = is_loopback(host) and token is None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Serve /metrics, or pass the request on and count it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == _PATH:
            await self._metrics(scope, send)
            return
        started = time.perf_counter()
        status = {"code": 500}

        async def counting_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, counting_send)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.requests.labels(route, str(status["code"])).inc()
            self.metrics.request_seconds.labels(route).inc(time.perf_counter() - started)

    async def _metrics(self, scope: dict, send: Any) -> None:
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        offered = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if self.metrics_token is not None:
            allowed = hmac.compare_digest(offered.encode(), self.metrics_token.encode())
            status, body = (200, None) if allowed else (401, b"this endpoint needs the metrics token\n")
        else:
            status, body = (200, None) if self.open_without_token else (404, b"not found\n")
        if body is None:
            body = await run_in_threadpool(self.metrics.render)
        content_type = CONTENT_TYPE_LATEST if status == 200 else "text/plain; charset=utf-8"
        await send(
            {"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type.encode())]}
        )
        await send({"type": "http.response.body", "body": body})


class _WorkbenchCollector:
    """Read the numbers every process shares from the state database, and this process's pools."""

    def __init__(self, bench: Any) -> None:
        self.bench = bench

    def collect(self) -> Any:
        """Yield the metric families (the shared ones only when the workbench has a state database)."""
        yield from _pool_families(self.bench)
        pool = getattr(self.bench, "pool", None)
        if pool is None:
            yield _gauge("workbench_queue_depth", "Questions waiting or being answered", self.bench.queue.length)
            return
        with pool.connection() as conn:
            yield from _shared_families(conn)


def _gauge(name: str, documentation: str, value: float, labels: dict[str, str] | None = None) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation, labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), value)
    return family


def _pool_families(bench: Any) -> Any:
    pools = GaugeMetricFamily(
        "workbench_pool_connections", "Connections of this process's pools", labels=["pool", "state"]
    )
    engine_stats = getattr(bench.engine.inner, "pool_stats", dict)()
    store_pool = getattr(bench, "pool", None)
    for name, stats in (("engine", engine_stats), ("store", store_pool.get_stats() if store_pool else {})):
        if stats:
            size, idle = stats.get("pool_size", 0), stats.get("pool_available", 0)
            pools.add_metric([name, "open"], size)
            pools.add_metric([name, "in_use"], size - idle)
            pools.add_metric([name, "waiting"], stats.get("requests_waiting", 0))
    yield pools


def _shared_families(conn: Any) -> Any:
    depth = GaugeMetricFamily("workbench_queue_jobs", "Questions by state", labels=["state"])
    for state, count in conn.execute(
        "SELECT s, (SELECT count(*) FROM workbench.jobs WHERE status = s) FROM unnest(ARRAY['queued', 'running']) s"
    ):
        depth.add_metric([state], count)
    yield depth
    alive = conn.execute(
        "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat > now() - interval '30 seconds'"
    ).fetchone()[0]
    yield _gauge("workbench_workers_alive", "Workers with a recent heartbeat", alive)
    stages = HistogramMetricFamily(
        "workbench_stage_seconds",
        "Seconds per stage of the questions answered (queue_wait: before a worker took it)",
        labels=["stage"],
    )
    buckets: dict[str, list[tuple[float, int]]] = {}
    for stage, bound, count in conn.execute("SELECT stage, bucket, count FROM workbench.stage_seconds ORDER BY 1, 2"):
        buckets.setdefault(stage, []).append((bound, count))
    totals = dict(
        (stage, seconds) for stage, seconds in conn.execute("SELECT stage, seconds FROM workbench.stage_totals")
    )
    for stage, pairs in buckets.items():
        cumulative = [
            ("+Inf" if bound == math.inf else repr(bound), sum(count for upper, count in pairs if upper <= bound))
            for bound in BUCKETS_S
        ]
        stages.add_metric([stage], cumulative, sum_value=totals.get(stage, 0.0))
    yield stages
    tokens = CounterMetricFamily(
        "workbench_lm_tokens", "LM tokens by model and direction", labels=["model", "direction"]
    )
    cost = CounterMetricFamily("workbench_lm_cost_usd", "LM cost by model (LiteLLM's prices)", labels=["model"])
    for model, input_tokens, output_tokens, usd in conn.execute(
        "SELECT model, input_tokens, output_tokens, cost_usd FROM workbench.lm_usage"
    ):
        tokens.add_metric([model, "input"], input_tokens)
        tokens.add_metric([model, "output"], output_tokens)
        cost.add_metric([model], usd)
    yield tokens
    yield cost
    errors = CounterMetricFamily(
        "workbench_engine_errors", "Failed executions of the kept answers (each attempt), by kind", labels=["kind"]
    )
    for kind, count in conn.execute(_ENGINE_ERRORS_SQL):
        errors.add_metric([kind], count)
    yield errors
