"""A test double of what the Strands SDK reads back from a session document.

The dataclasses carry the signatures of `strands.types.session` (Session, SessionAgent, SessionMessage); the reads
follow the MongoDB session manager's repository: read_session picks four fields (and the SDK's own `Session.from_dict`,
also done here over the whole document, keeps only the dataclass's fields, so top-level keys such as Hindsight's
`user_id` are ignored), read_agent builds SessionAgent from
agent_data without model/system_prompt/prompt_metadata, list_messages builds SessionMessage from each message without
event_loop_metrics (and the manager's other audit fields). A constructor raises on an unknown keyword or a missing
required field, as the SDK's do. Prints a JSON report; exits 1 on the first failure.

Usage: sdk_double.py <mongodb uri> <database> <session id>
"""
import inspect
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Optional

from pymongo import MongoClient


@dataclass
class Session:
    session_id: str
    session_type: str
    created_at: Any = None
    updated_at: Any = None

    @classmethod
    def from_dict(cls, env: dict) -> "Session":
        """As strands.types.session.Session.from_dict: keys that are not class parameters are ignored."""
        return cls(**{k: v for k, v in env.items() if k in inspect.signature(cls).parameters})


@dataclass
class SessionAgent:
    agent_id: str
    state: dict
    conversation_manager_state: dict
    _internal_state: dict = field(default_factory=dict)
    created_at: Any = None
    updated_at: Any = None


@dataclass
class SessionMessage:
    message: dict
    message_id: int
    redact_message: Optional[dict] = None
    created_at: Any = None
    updated_at: Any = None


AGENT_CONFIG_FIELDS = {"model", "system_prompt", "prompt_metadata"}
MESSAGE_EXCLUDED_FIELDS = {"event_loop_metrics", "latency_ms", "input_tokens", "output_tokens", "guardrail_event"}


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def main() -> None:
    uri, database, session_id = sys.argv[1:4]
    doc = MongoClient(uri)[database]["sessions"].find_one({"_id": session_id})
    check(doc is not None, f"session {session_id} not found")
    session = Session(
        session_id=doc["session_id"],
        session_type=doc.get("session_type", "default"),
        created_at=doc.get("created_at"),
        updated_at=doc.get("updated_at"),
    )
    check(isinstance(session.created_at, datetime), "session created_at is a date")
    check(Session.from_dict(doc) == session, "Session.from_dict of the whole document reads the same session")
    report = {"session": session.session_id, "agents": {}}
    for agent_id, agent_doc in doc["agents"].items():
        data = {k: v for k, v in agent_doc["agent_data"].items() if k not in AGENT_CONFIG_FIELDS}
        agent = SessionAgent(**data)
        check(agent.agent_id == agent_id, f"agent_id of {agent_id}")
        check(isinstance(agent.created_at, datetime), f"agent {agent_id} agent_data.created_at is a date")
        check(isinstance(agent.updated_at, datetime), f"agent {agent_id} agent_data.updated_at is a date")
        check(isinstance(agent_doc["created_at"], datetime), f"agent {agent_id} created_at is a date")
        messages = []
        for message_doc in agent_doc.get("messages", []):
            message = SessionMessage(**{k: v for k, v in message_doc.items() if k not in MESSAGE_EXCLUDED_FIELDS})
            check(isinstance(message.message_id, int), "message_id is an int")
            check(isinstance(message.created_at, datetime), "message created_at is a date")
            check(isinstance(message.message.get("content"), list), "message content is a list of blocks")
            shown = message.redact_message if message.redact_message is not None else message.message
            messages.append({"id": message.message_id, "role": shown["role"], "content": shown["content"]})
        report["agents"][agent_id] = {"state": agent.state, "messages": messages}
    print(json.dumps(report))


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # the report names what the SDK would have rejected
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
