"""The one rule for credentials: what never reaches disk or a shared report.

Every place that writes or shows a capture's metadata applies it — the recorder's sidecar,
``report``, ``minimize``'s ``curl -i`` head and the TUI's metadata pane — so a credential
hidden in one is hidden in all. Pure functions over text, no I/O.

Two parts, each enough on its own:

- **by name**: a header, a URL query or matrix parameter (``?x=``, ``&x=``, ``;x=``) whose name
  says *key, token, secret, signature (sig), auth, cookie, session, password, credential*
  has its whole value replaced (``Ocp-Apim-Subscription-Key``, ``X-Amz-Security-Token``,
  ``?X-Amz-Signature=``, ``;key=``). Counts named in the plural (``x-ratelimit-remaining-
  tokens``, ``max_tokens``) and ``author`` are not credentials and are kept.
- **by shape**, wherever it appears: an ``Authorization``-style scheme and its credential
  (``Bearer …``, ``Basic …``), the prefixes API keys are issued with (``sk-``, ``sk-proj-``,
  ``sk-ant-``, ``AKIA…``, ``AIza…``, ``ghp_…``, ``xoxb-…``, ``hf_…``, …), JSON Web Tokens, and
  the password of a URL's ``user:password@``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "REDACTED",
    "is_secret_name",
    "redact_head",
    "redact_header",
    "redact_meta",
    "redact_text",
]

REDACTED = "[redacted]"

_SECRET_NAME = re.compile(
    r"""key | token(?!s(?![a-z])) | secret | signature | passw | pwd | credential | cookie
    | session | sessid | auth(?!ors?(?![a-z])) | jwt | (?<![a-z])sig(?![a-z]) | ^code$""",
    re.IGNORECASE | re.VERBOSE,
)

_SCHEME = re.compile(
    r"\b(Bearer|Basic|Digest|Token|ApiKey|SharedKey|SharedAccessSignature|AWS4-HMAC-SHA256)"
    r"(\s+)[^\s,;\"']{6,}",
    re.IGNORECASE,
)
# Key prefixes as the providers issue them (OpenAI, Anthropic, DeepSeek, OpenRouter: sk-…;
# AWS access key ids; Google API keys; GitHub, GitLab, Slack, Hugging Face, Groq, xAI,
# Perplexity, Replicate, NVIDIA, Stripe secret keys), and JSON Web Tokens.
_KEY_SHAPE = re.compile(
    r"""(?<![A-Za-z0-9_-])(?:
        sk-[A-Za-z0-9_-]{16,}
      | (?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}
      | AIza[0-9A-Za-z_-]{35}
      | gh[pousr]_[A-Za-z0-9]{30,} | github_pat_[A-Za-z0-9_]{30,}
      | glpat-[A-Za-z0-9_-]{20,}
      | xox[abposr]-[A-Za-z0-9-]{10,}
      | hf_[A-Za-z0-9]{30,}
      | gsk_[A-Za-z0-9]{20,} | xai-[A-Za-z0-9]{20,} | pplx-[A-Za-z0-9]{20,}
      | r8_[A-Za-z0-9]{20,} | nvapi-[A-Za-z0-9_-]{20,}
      | (?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}
      | eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*
    )""",
    re.VERBOSE,
)
# name=value: in a query (after ?, &, ;) the value runs to the next separator; as a matrix
# parameter in a path (;name=value) to the end of its segment; in other text (at the start,
# after a space or a comma) to the next separator.
_QUERY_PARAM = re.compile(r"(^|[&;,\s])([^=&;,#\s?/]+)=([^&;,#\s]*)")
_PATH_PARAM = re.compile(
    r"(;)([^=&;,#\s?/]+)=([^/?&;,#\s]*)|(^|[&,\s])([^=&;,#\s?/]+)=([^&;,#\s]*)"
)
_USERINFO = re.compile(r"(://[^/\s:@?#]*):([^/\s@?#]*)@")


def is_secret_name(name: str) -> bool:
    """Whether a header or parameter named ``name`` carries a credential (its whole value is
    hidden)."""
    return _SECRET_NAME.search(name) is not None


def redact_text(text: str, secret_name: Callable[[str], bool] = is_secret_name) -> str:
    """``text`` (a URL, a header value, any metadata value) with every credential in it
    replaced by ``[redacted]``: the values of secret-named parameters, credentials by shape,
    a URL's password. Text with none is returned unchanged."""
    if "=" in text:

        def param(m: re.Match[str]) -> str:
            sep, name, value = m.group(1, 2, 3) if m.group(2) else m.group(4, 5, 6)
            if not value or not secret_name(name):
                return m.group(0)
            return f"{sep}{name}={REDACTED}"

        path, mark, query = text.partition("?")
        text = _PATH_PARAM.sub(param, path) + mark + _QUERY_PARAM.sub(param, query)
    if "@" in text:
        text = _USERINFO.sub(lambda m: f"{m.group(1)}:{REDACTED}@", text)
    text = _SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return _KEY_SHAPE.sub(REDACTED, text)


def redact_header(
    name: str, value: str, secret_name: Callable[[str], bool] = is_secret_name
) -> str:
    """A header's value fit to keep: all of it hidden when the name says credential, else
    the credentials found in it (``Location: …?api_key=…``)."""
    return REDACTED if secret_name(name) else redact_text(value, secret_name)


_META_HEADER = re.compile(r"^(?:request |response )?header (.+)$")


def redact_meta(key: str, value: str) -> str:
    """A trace's metadata value (``Trace.meta``: ``header X-Api-Key``, ``request header
    Authorization``, ``request``, …) fit to show or share."""
    header = _META_HEADER.match(key)
    if header is not None:
        return redact_header(header.group(1), value)
    return redact_text(value)


def redact_head(head: bytes) -> bytes:
    """An HTTP message head (``curl -i``: status line, then ``Name: value`` lines) with its
    credentials hidden; line endings and everything else kept byte for byte."""
    lines = head.decode("latin-1").split("\n")
    out = []
    for i, line in enumerate(lines):
        body, cr = (line[:-1], "\r") if line.endswith("\r") else (line, "")
        name, colon, value = body.partition(":")
        if i and colon and name.strip() and " " not in name.strip():
            shown = redact_header(name.strip(), value.strip())
            if shown != value.strip():
                lead = value[: len(value) - len(value.lstrip())]
                body = f"{name}:{lead}{shown}"
        else:
            body = redact_text(body)
        out.append(body + cr)
    return "\n".join(out).encode("latin-1")
