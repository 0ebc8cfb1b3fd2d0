"""editProfile's "Your data" (issue 31) in the real web view against the real service: "Download my data" hands the host
the account's export (onCaptureAccountDataReady: the document indented as text, named for the day of its exported_at,
application/json) and offers it in the page as a blob: link to save, dropped and its URL revoked when the next download
replaces it or another screen shows; "Email it to me" has the service mail the same document to the account's own
address in the page's language (onCaptureAccountDataMailed) and says where. What goes wrong (the network, the service's
database out of reach for a moment, any other refusal, the page's own token dead) is said in the section with
onCaptureAccountDataFailed, the buttons usable again at once. Also Arabic, axe-core light and dark, and screenshots at
phone size in .build/screenshots/account-data/."""

import datetime
import json
import re

from conftest import CLIENT_ID, SHOTS
from screens import (checked_at_phone_size, checked_light_and_dark, fail_requests, open_profile, sign_in_from,
                     signed_out_by_a_dead_token, text_of)
from test_languages import ROOT, catalog
from test_sessions import IPHONE

TEXTS = catalog("en")
FOLDER = SHOTS / "account-data"
FORMAT = "capture-bridge account export 1"
SECTION = "#editProfile [data-capture-account-data]"
DOWNLOAD = SECTION + " [data-capture-account-data-download]"
MAIL = SECTION + " [data-capture-account-data-mail]"
FILE = SECTION + " [data-capture-account-data-file]"
NOTE = SECTION + " [data-capture-factor-note]"
ERROR = SECTION + " .capture_form_error"
# What the page makes of its files, kept for the test (a host's user script): each blob: URL with its Blob's type and
# text, and every URL it revoked.
FILES_KEPT = """(function () { var make = URL.createObjectURL, revoke = URL.revokeObjectURL;
    window.__files = {}; window.__revoked = [];
    URL.createObjectURL = function (blob) {
        var url = make.apply(URL, arguments), file = window.__files[url] = {type: blob.type};
        blob.text().then(function (text) { file.text = text; });
        return url; };
    URL.revokeObjectURL = function (url) { window.__revoked.push(url); return revoke.apply(URL, arguments); }; })();"""


def isolated(text):
    """A file name or an address as the page puts it in a sentence: a unit of its own, whatever the direction."""
    return "\u2068%s\u2069" % text


def mail_subject(tag=""):
    """The subject of the data's mail in a language ("": English), from Settings/mail."""
    name = "accountData.%s.txt" % tag if tag else "accountData.txt"
    return (ROOT / "Settings" / "mail" / name).read_text(encoding="utf-8").splitlines()[0][len("Subject: "):]


def mailed_document(message):
    """The JSON document a data mail carries (its text after the greeting and the explanation)."""
    start = message.text.index("\n{") + 1
    return json.JSONDecoder().raw_decode(message.text[start:])[0]


def tap(host, selector, event):
    """Taps `selector`; returns `event`'s result, the same on the message transport as on the queue."""
    queue_mark, message_mark = host.mark()
    host.click(selector)
    result = host.wait_for_event(event, after=queue_mark).result
    assert host.wait_for_event(event, "message", after=message_mark).result == result
    return result


def offered_file(host):
    """The section's "Save the file" link as [its text, href, download name, the file's type, the file's text]; None
    when the section offers none."""
    link = host.run_js("(function(a){ return a && !a.hidden ? [a.textContent.trim(), a.getAttribute('href'),"
                       " a.getAttribute('download')] : null; })(document.querySelector(%s))" % json.dumps(FILE))
    if link is None:
        return None
    made = "window.__files[%s]" % json.dumps(link[1])
    host.wait_for(lambda: host.run_js("!!%s && typeof %s.text === 'string'" % (made, made)), 5, "the file's text")
    kept = host.run_js(made)
    return link + [kept["type"], kept["text"]]


def usable(host):
    """Both buttons are there and can be tapped (neither busy nor disabled)."""
    return host.run_js("(function(buttons){ return buttons.length === 2 && [].every.call(buttons, function(b){"
                       " return !b.disabled && !b.hasAttribute('aria-disabled') && !b.hasAttribute('aria-busy'); });"
                       " })(document.querySelectorAll(%s))" % json.dumps(DOWNLOAD + ", " + MAIL))


def role(host, selector):
    return host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(selector))


def test_download_hands_the_host_the_document_and_offers_the_file(server, host):
    host.add_user_script(FILES_KEPT)
    email, registered = server.register(display_name="Ada")
    ours = registered["access_token"]
    phone = sign_in_from(server, email, IPHONE)
    open_profile(server, host, ours)
    # After "Your sessions", before the screen's own buttons (change password, sign out, delete).
    assert host.run_js("[document.querySelector('#editProfile [data-capture-sessions]').nextElementSibling"
                       " === document.querySelector(%s), document.querySelector(%s).nextElementSibling"
                       ".getAttribute('data-capture-screen')]" % (json.dumps(SECTION), json.dumps(SECTION))) \
        == [True, "changePassword"]
    assert text_of(host, "#accountData_title") == TEXTS["widget.accountDataTitle"]
    assert text_of(host, SECTION + " .capture_lead") == TEXTS["widget.accountDataLead"]
    assert text_of(host, DOWNLOAD) == TEXTS["widget.accountDataDownload"]
    assert text_of(host, MAIL) == TEXTS["widget.accountDataMail"]
    assert offered_file(host) is None and text_of(host, NOTE) is None

    ready = tap(host, DOWNLOAD, "onCaptureAccountDataReady")
    assert ready["status"] == "success" and ready["statusMessage"] == "accountDataReady", ready
    assert ready["screen"] == "editProfile" and ready["mimeType"] == "application/json"
    document = json.loads(ready["data"])
    assert ready["data"] == json.dumps(document, indent=2, ensure_ascii=False), "indented by two spaces"
    assert document["format"] == FORMAT and document["record"]["email"] == email
    assert document["record"]["displayName"] == "Ada"
    assert [(s["client_id"], s["device"]) for s in document["sessions"]] == [(CLIENT_ID, None),
                                                                            (CLIENT_ID, "iPhone · Safari")]
    assert re.fullmatch(r"account-data-\d{4}-\d{2}-\d{2}\.json", ready["fileName"])
    assert ready["fileName"] == "account-data-%s.json" % document["exported_at"][:10]
    exported = datetime.datetime.fromisoformat(document["exported_at"].replace("Z", "+00:00"))
    assert abs(datetime.datetime.now(datetime.timezone.utc) - exported) < datetime.timedelta(minutes=5)
    for token in (ours, phone):
        assert token not in ready["data"], "no token in the document"
    assert not [row for row in document["audit"] if row["action"] == "account.export"], "the first download"

    text, href, name, kind, saved = offered_file(host)
    assert text == TEXTS["widget.accountDataSave"] and name == ready["fileName"] and kind == "application/json"
    assert href.startswith("blob:%s/" % server.base) and saved == ready["data"]
    assert text_of(host, NOTE) == TEXTS["widget.accountDataReady"].replace("%s", isolated(ready["fileName"]))
    assert role(host, NOTE) == "status" and usable(host)

    # Again: the new file replaces the old one, whose URL is revoked; the first download is in the second's audit.
    again = tap(host, DOWNLOAD, "onCaptureAccountDataReady")
    assert [row["detail"] for row in json.loads(again["data"])["audit"] if row["action"] == "account.export"] \
        == ["downloaded"]
    _, newer, _, _, saved = offered_file(host)
    assert newer != href and saved == again["data"] and host.run_js("window.__revoked") == [href]

    # Another screen: the link goes with its URL, and editProfile shown again offers nothing until asked.
    assert host.run_js("janrain.capture.ui.renderScreen('changePassword')") is True
    host.wait_for_screen("changePassword")
    assert host.run_js("window.__revoked") == [href, newer]
    assert host.run_js("janrain.capture.ui.renderScreen('editProfile')") is True
    host.wait_for_screen("editProfile")
    assert offered_file(host) is None and text_of(host, NOTE) is None


def test_email_it_to_me_mails_the_document_to_the_accounts_own_address(server, host, mailbox):
    email, registered = server.register()
    ours = registered["access_token"]
    open_profile(server, host, ours)
    mails = mailbox.count()
    mailed = tap(host, MAIL, "onCaptureAccountDataMailed")
    assert mailed["status"] == "success" and mailed["statusMessage"] == "accountDataMailed", mailed
    assert mailed["screen"] == "editProfile" and "data" not in mailed
    assert text_of(host, NOTE) == TEXTS["widget.accountDataMailedTo"].replace("%s", isolated(email))
    assert role(host, NOTE) == "status" and usable(host)
    assert offered_file(host) is None, "nothing to save here: it is in the mail"

    message = mailbox.wait_for(email, host, after=mails, subject=mail_subject())
    assert message.recipients == [email.lower()] and message.subject == mail_subject()
    assert FORMAT in message.text and ours not in message.text
    document = mailed_document(message)
    assert document["format"] == FORMAT and document["record"]["email"] == email


def test_what_goes_wrong_is_said_in_the_section_and_a_dead_token_signs_the_page_out(server, host):
    """The network down, the service's database out of reach for a moment (503), another refusal (500): each said in
    the section, the buttons usable again; then the page's own sign-in ended elsewhere: the page signs out."""
    host.add_user_script(FILES_KEPT)
    unavailable = {"stat": "error", "code": 503, "error": "service_unavailable",
                   "error_description": "The service cannot reach its database for a moment. Try again shortly."}
    broken = {"stat": "error", "code": 500, "error": "unexpected_error", "error_description": "unexpected error"}
    fail_requests(host, {"/account/export": [None, [503, unavailable]], "/account/export_mail": [[500, broken]]})
    email, registered = server.register()
    ours = registered["access_token"]
    open_profile(server, host, ours)

    offline = tap(host, DOWNLOAD, "onCaptureAccountDataFailed")
    assert offline["status"] == "error" and offline["statusMessage"] == "networkError", offline
    assert offline["action"] == "download" and offline["screen"] == "editProfile"
    assert text_of(host, ERROR) == TEXTS["widget.network"] and role(host, ERROR) == "alert"
    assert usable(host) and offered_file(host) is None

    busy = tap(host, DOWNLOAD, "onCaptureAccountDataFailed")
    assert (busy["code"], busy["error"], busy["action"]) == (503, "service_unavailable", "download"), busy
    assert text_of(host, ERROR) == TEXTS["widget.accountDataUnavailable"] and usable(host)

    ready = tap(host, DOWNLOAD, "onCaptureAccountDataReady")
    assert json.loads(ready["data"])["record"]["email"] == email
    assert text_of(host, ERROR) is None, "the message goes with the next try"
    href = offered_file(host)[1]

    refused = tap(host, MAIL, "onCaptureAccountDataFailed")
    assert (refused["code"], refused["error"], refused["action"]) == (500, "unexpected_error", "mail"), refused
    assert text_of(host, ERROR) == TEXTS["widget.accountDataNotMailed"] and usable(host)

    # This page's own sign-in ended elsewhere: the failure, then the page ends its session as for any dead token, and
    # the file it offered goes with it.
    failed = signed_out_by_a_dead_token(server, host, ours, MAIL, "onCaptureAccountDataFailed")
    assert failed["action"] == "mail" and failed["screen"] == "editProfile", failed
    assert href in host.run_js("window.__revoked")


def test_the_section_speaks_arabic(server, host, mailbox):
    texts = catalog("ar")
    email, registered = server.register()
    open_profile(server, host, registered["access_token"], locale="ar-SA")
    assert text_of(host, "#accountData_title") == texts["widget.accountDataTitle"]
    assert text_of(host, SECTION + " .capture_lead") == texts["widget.accountDataLead"]
    assert text_of(host, DOWNLOAD) == texts["widget.accountDataDownload"]
    assert text_of(host, MAIL) == texts["widget.accountDataMail"]

    ready = tap(host, DOWNLOAD, "onCaptureAccountDataReady")
    assert text_of(host, NOTE) == texts["widget.accountDataReady"].replace("%s", isolated(ready["fileName"]))
    assert text_of(host, FILE) == texts["widget.accountDataSave"]
    mails = mailbox.count()
    tap(host, MAIL, "onCaptureAccountDataMailed")
    assert text_of(host, NOTE) == texts["widget.accountDataMailedTo"].replace("%s", isolated(email))
    # The page's language went with the request: the mail is in Arabic.
    message = mailbox.wait_for(email, host, after=mails, subject=mail_subject("ar"))
    assert mailed_document(message)["record"]["email"] == email
    checked_at_phone_size(host, FOLDER / "editProfile-account-data-ar.png")


def test_the_section_passes_axe_light_and_dark_at_phone_size(server, host, dark_scheme_reset):
    host.add_user_script(FILES_KEPT)
    fail_requests(host, {"/account/export_mail": [None]})
    email, registered = server.register(display_name="Grace")
    open_profile(server, host, registered["access_token"])
    assert host.run_js("window.innerWidth") == 375
    checked_light_and_dark(host, FOLDER, "editProfile-account-data")
    # Downloaded: the note and "Save the file"; then a failed mail's message.
    tap(host, DOWNLOAD, "onCaptureAccountDataReady")
    assert offered_file(host) is not None
    checked_at_phone_size(host, FOLDER / "editProfile-account-data-ready-dark.png")
    tap(host, MAIL, "onCaptureAccountDataFailed")
    assert text_of(host, ERROR) == TEXTS["widget.network"]
    checked_at_phone_size(host, FOLDER / "editProfile-account-data-failed-dark.png")
