"""What one API's wire can say: the content kinds, endings and usage fields it carries.

Each encoder declares its :class:`Capability`; a spec asking for anything outside it is not
encoded (the encoder answers ``None``), so a case lists exactly the APIs that can express it.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.maintenance.responses.spec import Ending, Kind, ResponseSpec

USAGE_FIELDS = ("cache_read", "cache_write", "reasoning")


@dataclass(frozen=True)
class Capability:
    kinds: frozenset[Kind]
    endings: frozenset[Ending]
    #: The usage fields beyond input and output the wire reports.
    usage_fields: frozenset[str]
    #: The wire may leave usage out altogether.
    usage_optional: bool = True
    #: The wire may leave the response id out.
    id_optional: bool = False
    #: The wire names the model that answered.
    names_model: bool = True
    #: A tool call's arguments may stream in several pieces.
    split_arguments: bool = True
    #: A tool call may carry a thought signature.
    signed_tool_calls: bool = False
    #: The wire has no stop reason of its own for tool use: a finished response with tool
    #: calls is tool use, one without is a stop (Responses, Gemini).
    tool_use_from_content: bool = False

    def accepts(self, spec: ResponseSpec) -> bool:
        if spec.ending not in self.endings:
            return False
        if any(block.kind not in self.kinds for block in spec.blocks):
            return False
        if not self.split_arguments and any(len(b.deltas) > 1 for b in spec.tool_calls):
            return False
        if not self.signed_tool_calls and any(b.signature for b in spec.tool_calls):
            return False
        if spec.ending.is_http_error:
            return True
        if self.tool_use_from_content and spec.ending in (Ending.STOP, Ending.TOOL_USE) \
                and (spec.ending is Ending.TOOL_USE) != bool(spec.tool_calls):
            return False
        if spec.usage is None:
            if not self.usage_optional:
                return False
        elif any(getattr(spec.usage, name) and name not in self.usage_fields
                 for name in USAGE_FIELDS):
            return False
        if not spec.response_id and not self.id_optional:
            return False
        return not (spec.response_model and not self.names_model)


def of(kinds: set[Kind], endings: set[Ending], usage_fields: set[str],
       **flags: bool) -> Capability:
    return Capability(frozenset(kinds), frozenset(endings), frozenset(usage_fields), **flags)


ALL_ENDINGS = set(Ending)
