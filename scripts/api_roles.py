"""Schemathesis hooks and checks for scripts/check-api: the API fuzzed as one role.

The role comes from the environment, set by check-api for each run:
  LIGHTBOX_ROLE     link, read-token, limited-token, contributor, member, admin, write-token
  LIGHTBOX_SHARE    the share's identifier a contributor names (?share=ID) on every request
  LIGHTBOX_SECRETS  identifiers (comma-separated) of the owner's assets and albums this role
                    must never see: outside the shared album, for every role that is not the
                    owner's

Two checks beside schemathesis's own:
  role_may_call     a 2xx only for an operation the role's credential may call: its access
                    (x-lightbox-access in the document: open, read, write, contribute, person,
                    admin) is one the role holds
  nothing_secret    no answer carries an identifier of what the role may not see
"""

import os

import schemathesis

ROLE = os.environ.get("LIGHTBOX_ROLE", "write-token")
SHARE = os.environ.get("LIGHTBOX_SHARE", "")
SECRETS = [secret for secret in os.environ.get("LIGHTBOX_SECRETS", "").split(",") if secret]

# What each role's credential may call (RouteAccess in Sources/LightboxServer/Routes.swift). A
# contributor is a member's session reaching an album shared with them to contribute to: it
# may add photos there, never change the owner's library.
ALLOWED = {
    "link": {"open", "read"},
    "read-token": {"open", "read"},
    "limited-token": {"open", "read"},
    "write-token": {"open", "read", "write", "contribute"},
    "contributor": {"open", "read", "contribute", "person"},
    "member": {"open", "read", "write", "contribute", "person"},
    "admin": {"open", "read", "write", "contribute", "person", "admin"},
}


@schemathesis.hook
def before_call(context, case, kwargs):
    if ROLE == "contributor" and SHARE:
        case.query = dict(case.query or {})
        case.query["share"] = SHARE


@schemathesis.check
def role_may_call(ctx, response, case):
    if not 200 <= response.status_code < 300:
        return None
    access = case.operation.definition.raw.get("x-lightbox-access", "read")
    if access not in ALLOWED[ROLE]:
        raise AssertionError(
            "%s answered %d to %s, which needs %s access" % (case.operation.label, response.status_code, ROLE, access)
        )
    return None


@schemathesis.check
def nothing_secret(ctx, response, case):
    text = response.content.decode("utf-8", "replace") if response.content else ""
    for secret in SECRETS:
        if secret.lower() in text.lower():
            raise AssertionError(
                "%s showed %s the owner's %s, outside what it may see" % (case.operation.label, ROLE, secret)
            )
    return None
