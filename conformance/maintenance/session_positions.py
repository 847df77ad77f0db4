"""Where Pi gives a value meaning: the positions of Pi 1.6.0's session format, by kind.

Anonymizing decides by position, never by a key's name at any depth: ``type`` is vocabulary
in an entry or a content block, but user data in a tool call's arguments. Each table is the
union of the fields one position has over every entry type or role (a field means the same in
each), from pi-coding-agent's ``session-manager.d.ts`` and ``messages.d.ts`` and pi-ai's
``types.d.ts``. A key a table does not name is user data: its name is replaced too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Union


class Kind(Enum):
    """What a value at a position is, hence what anonymizing does with it."""

    VOCAB = "vocabulary: kept unless it has the shape of a secret"
    ID = "an id: replaced, the same id the same way, a provider prefix (call_) kept"
    ISO_TIME = "an ISO timestamp: moved by the file's one offset"
    MS_TIME = "a millisecond timestamp: moved by the file's one offset"
    NUMBER = "a number Pi counts with (tokens, costs, exit codes): kept"
    FLAG = "a boolean or null: kept (a string there is text)"
    TEXT = "what someone wrote: replaced run by run (a string holding JSON as user data)"
    SIGNATURE = "a provider's opaque data: replaced; as JSON, its keys and types kept"
    IMAGE = "image data: synthetic bytes behind the format's header"
    DATA = "user data: keys, strings and numbers all replaced"
    SCHEMA = "a tool's JSON Schema: keywords kept, names and texts replaced"


@dataclass(frozen=True)
class Obj:
    """An object position: its known fields (a list there holds such objects)."""

    fields: Mapping[str, Field]


@dataclass(frozen=True)
class Named:
    """An object whose keys are vocabulary names (prompt sections), values of one kind."""

    values: Field


Field = Union[Kind, Obj, Named]  # noqa: UP007 (a forward reference: | cannot take a string)

V, ID, N, F, T = Kind.VOCAB, Kind.ID, Kind.NUMBER, Kind.FLAG, Kind.TEXT

COST = Obj({"input": N, "output": N, "cacheRead": N, "cacheWrite": N, "total": N,
            "totalFromProvider": F})
USAGE = Obj({"input": N, "output": N, "cacheRead": N, "cacheWrite": N, "cacheWrite1h": N,
             "reasoning": N, "totalTokens": N, "cost": COST})
BLOCK = Obj({"type": V, "text": T, "textSignature": Kind.SIGNATURE, "thinking": T,
             "thinkingSignature": Kind.SIGNATURE, "redacted": F, "data": Kind.IMAGE,
             "mimeType": V, "id": ID, "name": V, "arguments": Kind.DATA,
             "thoughtSignature": Kind.SIGNATURE, "namespace": V, "argumentsError": T})
TOOL = Obj({"name": V, "description": T, "parameters": Kind.SCHEMA,
            "constrainedSampling": Obj({"type": V, "strict": V, "variants": Kind.DATA})})
DIAGNOSTIC = Obj({"type": V, "timestamp": Kind.MS_TIME, "details": Kind.DATA,
                  "error": Obj({"name": V, "message": T, "stack": T, "code": V})})
DEFERRED = Obj({"provider": V, "modelId": V, "api": V, "id": ID, "expiresAt": Kind.MS_TIME,
                "pollAfterMs": N, "data": Kind.DATA})
NESTED_CALLS = Obj({"complete": F, "calls": Obj({
    "id": ID, "name": V, "arguments": Kind.DATA, "argumentsBytes": N, "status": V,
    "durationMs": N, "error": T})})
MESSAGE = Obj({
    "role": V, "content": BLOCK, "timestamp": Kind.MS_TIME,
    # assistant
    "api": V, "provider": V, "model": V, "responseModel": V, "responseId": ID,
    "providerThinkingLevel": V, "thinkingLevel": V, "diagnostics": DIAGNOSTIC, "usage": USAGE,
    "stopReason": V, "rawStopReason": V, "deferred": DEFERRED, "errorMessage": T, "endTurn": F,
    "durationMs": N,
    # toolResult
    "toolCallId": ID, "toolName": V, "details": Kind.DATA, "nestedCalls": NESTED_CALLS,
    "isError": F,
    # system
    "sections": Named(T), "toolsAdded": TOOL, "toolsRemoved": Obj({"name": V}),
    # bashExecution
    "command": T, "output": T, "exitCode": N, "cancelled": F, "truncated": F,
    "fullOutputPath": T, "excludeFromContext": F,
    # custom (hookMessage before v3), branchSummary, compactionSummary
    "customType": V, "display": F, "summary": T, "fromId": ID, "tokensBefore": N,
})
ENTRY = Obj({
    "type": V, "id": ID, "parentId": ID, "timestamp": Kind.ISO_TIME,
    # the header
    "version": N, "cwd": T, "parentSession": T,
    "message": MESSAGE, "thinkingLevel": V, "provider": V, "modelId": V,
    # usage
    "kind": V, "model": V, "usage": USAGE, "note": T,
    # compaction, branch_summary
    "summary": T, "firstKeptEntryId": ID, "tokensBefore": N, "details": Kind.DATA,
    "fromHook": F, "systemMessage": MESSAGE, "fromId": ID,
    # custom, custom_message
    "customType": V, "data": Kind.DATA, "content": BLOCK, "display": F,
    # context_edit, label, session_info
    "targetId": ID, "replacement": Obj({"content": BLOCK}), "label": T, "name": T,
})

#: Ids that mean something rather than name an entry (a branch summary from the root).
SPECIAL_IDS = frozenset({"root"})
#: Prefixes that carry meaning for providers (``call_``, ``toolu_``, ``fc_``...): kept at the
#: start of an id, before its ``_``, so that an id keeps its provider's form.
ID_PREFIXES = frozenset({"call", "toolu", "fc", "rs", "msg", "resp", "chatcmpl", "ws",
                         "srvtoolu", "ctc"})

#: JSON Schema keywords: kept as keys in a tool's parameters.
SCHEMA_KEYWORDS = frozenset({
    "type", "properties", "patternProperties", "additionalProperties", "required", "items",
    "prefixItems", "additionalItems", "enum", "const", "default", "examples", "description",
    "title", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
    "contains", "propertyNames", "dependentRequired", "dependentSchemas", "$ref", "$defs",
    "definitions", "$schema", "$id", "$comment", "nullable", "readOnly", "writeOnly",
    "deprecated", "contentMediaType", "contentEncoding", "unevaluatedProperties",
    "unevaluatedItems", "discriminator",
})
#: Keywords whose value is an object of names -> schemas.
SCHEMA_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions",
                          "dependentSchemas"})
#: Keywords whose value is text or user data rather than a schema.
SCHEMA_TEXT = frozenset({"description", "title", "pattern", "$comment", "$id", "$schema"})
SCHEMA_DATA = frozenset({"enum", "const", "default", "examples"})

#: In a provider's JSON signature (an OpenAI reasoning item): keys whose values are
#: vocabulary, and the keys whose values are ids.
SIGNATURE_VOCAB = frozenset({"type", "role", "status", "phase", "format", "v", "version"})
