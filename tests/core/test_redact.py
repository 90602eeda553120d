"""The one redaction rule, over a table of credential names and values as real services use
them, and of look-alikes that are not credentials (kept, so the metadata stays useful)."""

from __future__ import annotations

import pytest

from replay_tui.core.redact import (
    REDACTED,
    is_secret_name,
    redact_head,
    redact_header,
    redact_meta,
    redact_text,
)

# Header names whose value is a credential, as the services send them.
SECRET_HEADERS = [
    "Authorization",  # OpenAI, DeepSeek, every bearer API
    "Proxy-Authorization",
    "api-key",  # Azure OpenAI
    "x-api-key",  # Anthropic
    "x-goog-api-key",  # Gemini
    "Ocp-Apim-Subscription-Key",  # Azure API Management
    "X-Amz-Security-Token",  # AWS STS session token
    "X-Auth-Token",  # OpenStack, many gateways
    "X-Forwarded-Auth",
    "X-Goog-Iap-Jwt-Assertion",
    "Cookie",
    "Set-Cookie",
    "X-CSRF-Token",
    "X-Session-Id",
    "X-Client-Secret",
    "X-Hub-Signature-256",  # GitHub webhooks
    "X-Password",
    "WWW-Authenticate",
    "x-portkey-api-key",  # Portkey gateway
    "Helicone-Auth",  # Helicone gateway
    "cf-aig-authorization",  # Cloudflare AI Gateway
]

# Query and matrix parameter names whose value is a credential.
SECRET_PARAMS = [
    "key",  # Gemini ?key=
    "api_key",
    "apikey",
    "api-key",
    "x-goog-api-key",
    "access_token",
    "token",
    "sig",  # Azure SAS
    "code",  # Azure Functions' function key (?code=), an OAuth authorization code
    "X-Amz-Signature",  # AWS presigned URLs
    "X-Amz-Credential",
    "X-Amz-Security-Token",
    "Signature",  # S3 v2, CloudFront
    "AWSAccessKeyId",
    "client_secret",
    "password",
    "sessionid",
    "JSESSIONID",
    "auth",
    "id_token",
]

# Names that say nothing of a credential: their values are kept whole.
KEPT_NAMES = [
    "Content-Type",
    "Content-Length",
    "X-Request-Id",
    "OpenAI-Organization",
    "OpenAI-Processing-Ms",
    "x-ratelimit-remaining-tokens",  # a count of model tokens, not a credential
    "X-Error-Code",  # (a parameter named "code" alone is a credential; an error code is not)
    "finish_code",
    "x-ratelimit-limit-tokens",
    "anthropic-ratelimit-tokens-limit",
    "max_tokens",
    "model",
    "alt",
    "stream",
    "Via",
    "Date",
    "X-Amz-SignedHeaders",
    "X-Amz-Date",
    "author",
    "assign",
    "design",
    "se",  # Azure SAS expiry
    "sp",
    "sv",
]

# Values whose shape says credential, wherever they appear (a header not named like one, a
# URL, free text); each with the part that must be gone.
SHAPED = [
    ("Bearer sk-proj-Xq1vT8dL3mN6pR2sW9yZ0aB4cE7fG5hJ", "sk-proj-Xq1vT8dL3mN6pR2sW9yZ0aB4cE7fG5hJ"),
    ("bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9"),
    ("Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
    ("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("key sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0", "sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0"),  # DeepSeek
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),  # AWS's documented example id
    ("ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSyA-1234567890abcdefghijklmnopqrstu"),
    ("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
    ("xoxb-1234567890-0987654321-AbCdEfGhIjKl", "xoxb-1234567890-0987654321-AbCdEfGhIjKl"),
    ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123", "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123"),
    ("sk_live_AbCdEfGhIjKlMnOpQrSt", "sk_live_AbCdEfGhIjKlMnOpQrSt"),
    ("https://user:hunter2@gw.example/v1", "hunter2"),
]


@pytest.mark.parametrize("name", SECRET_HEADERS)
def test_a_header_named_like_a_credential_is_hidden_whole(name: str) -> None:
    assert is_secret_name(name) and is_secret_name(name.lower()) and is_secret_name(name.upper())
    assert redact_header(name, "opaque-value-123") == "[redacted]"
    assert redact_meta(f"header {name}", "opaque-value-123") == "[redacted]"
    assert redact_meta(f"request header {name}", "opaque-value-123") == "[redacted]"


@pytest.mark.parametrize("name", SECRET_PARAMS)
def test_a_parameter_named_like_a_credential_is_hidden(name: str) -> None:
    for url, shown in [
        (
            f"https://h/v1/m:stream?alt=sse&{name}=S3CR3T",
            f"https://h/v1/m:stream?alt=sse&{name}=[redacted]",
        ),
        (f"https://h/v1?{name}=S3CR3T&alt=sse", f"https://h/v1?{name}=[redacted]&alt=sse"),
        (f"https://h/v1;{name}=S3CR3T/chat", f"https://h/v1;{name}=[redacted]/chat"),
        (f"POST https://h/v1?{name}=S3CR3T#frag", f"POST https://h/v1?{name}=[redacted]#frag"),
    ]:
        assert redact_text(url) == shown
    assert redact_meta("request", f"GET /x?{name}=S3CR3T") == f"GET /x?{name}=[redacted]"


@pytest.mark.parametrize("name", KEPT_NAMES)
def test_other_names_keep_their_values(name: str) -> None:
    assert not is_secret_name(name)
    assert redact_header(name, "value 42") == "value 42"
    assert redact_text(f"https://h/v1?{name}=42&b=%2F") == f"https://h/v1?{name}=42&b=%2F"


@pytest.mark.parametrize(("value", "secret"), SHAPED)
def test_a_value_shaped_like_a_credential_is_hidden_anywhere(value: str, secret: str) -> None:
    for shown in (
        redact_header("X-Forwarded-For-Something", value),
        redact_header("Location", f"https://h/cb?next={value}"),
        redact_meta("request", f"POST {value}"),
        redact_text(f"upstream said: {value}, then stopped"),
    ):
        assert secret not in shown and REDACTED in shown, shown


def test_the_issues_cases() -> None:
    """Issue 29, item 6, as reported."""
    assert (
        redact_header(
            "Location", "https://gw.example/v1/x?api_key=sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA&n=1"
        )
        == "https://gw.example/v1/x?api_key=[redacted]&n=1"
    )
    assert redact_header("X-Forwarded-Auth", "Bearer sk-live-0123456789abcdef") == REDACTED
    assert redact_header("X-Anything", "Bearer sk-live-0123456789abcdef") == "Bearer [redacted]"


def test_text_without_credentials_is_unchanged() -> None:
    for text in (
        "text/event-stream; charset=utf-8",
        "HTTP/1.1 200 OK",
        "POST https://api.deepseek.com/v1/chat/completions",
        "https://h/v1?alt=sse&model=gpt-4o&max_tokens=100",
        "sk-SK",  # a locale, not a key
        "Token limit",
        "max-age=0, private",
        "2026-11-30T10:15:02.123Z",
        "[redacted]",
    ):
        assert redact_text(text) == text


def test_a_head_is_redacted_line_by_line_and_kept_byte_for_byte_otherwise() -> None:
    head = (
        b"HTTP/1.1 200 OK\r\n"
        b"content-type: text/event-stream\r\n"
        b"Ocp-Apim-Subscription-Key:   abc123\r\n"
        b"location: https://h/x?sig=SIG123&a=1\r\n"
        b"x-note: caf\xe9  \r\n"
        b"\r\n"
    )
    assert redact_head(head) == (
        b"HTTP/1.1 200 OK\r\n"
        b"content-type: text/event-stream\r\n"
        b"Ocp-Apim-Subscription-Key:   [redacted]\r\n"
        b"location: https://h/x?sig=[redacted]&a=1\r\n"
        b"x-note: caf\xe9  \r\n"
        b"\r\n"
    )
