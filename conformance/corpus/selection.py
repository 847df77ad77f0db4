"""What a run covers: which cases (id globs, features) and which stages (``--stage``, ``--api``).

One value, spelled once: the CLI and the pytest plugin make it, the run plan carries it, the
runner asks it which stages it wants, implementations get its stage hint, and the report
header records it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.corpus.stages import REQUEST_PREFIX, RESPONSE_PREFIX, WIRE_PREFIX, api_of


@dataclass(frozen=True)
class Selection:
    """Which cases and stages to run; empty means all.

    ``stages`` and ``apis`` add up: ``--stage context --api openai-responses`` runs the
    context stage, request.openai-responses, wire.openai-responses and response.openai-responses
    (where a case has it); ``--api`` alone runs only those.
    """

    cases: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()

    @property
    def narrowed(self) -> bool:
        """Whether the run is narrowed to some stages."""
        return bool(self.stages or self.apis)

    def wants(self, stage: str) -> bool:
        if not self.narrowed:
            return True
        return stage in self.stages or api_of(stage) in self.apis

    @property
    def hint(self) -> tuple[str, ...] | None:
        """Every stage the run may ask (``PI_CONFORMANCE_STAGES``, docs/protocol.md); None
        when it is not narrowed and may ask any."""
        if not self.narrowed:
            return None
        by_api = (prefix + api for api in self.apis
                  for prefix in (REQUEST_PREFIX, WIRE_PREFIX, RESPONSE_PREFIX))
        return tuple(dict.fromkeys([*self.stages, *by_api]))

    def to_json(self) -> dict[str, Any]:
        return {"cases": list(self.cases), "features": list(self.features),
                "stages": list(self.stages), "apis": list(self.apis)}
