"""The sixteenth template set, ``fresh14``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is a city newsroom that prints a daily paper, runs a website and puts out local TV and
radio bulletins from two studios, as its newsdesk, output editors, planning desk and broadcast
engineering see it. People are journalists (reporters, producers, videojournalists) with the beat
they cover (courts, council, transport), the hot desk they sit at ("desk 2.07"), the date their
press card expires, and two editors that are easily confused (the print editor who handles their
copy for the paper and the web editor who publishes it online: the look-alike pair, drawn from two
pools where a few names nearly match, "Maureen Blackwood" beside "Maureen Blackwell"). The
"deployments" are broadcast kit in the building's two look-alike studios (the vision mixer in
Studio A and the one in Studio B) with a status (the observation slot), the software version it
runs and the technician who looks after it; the "service" of a kit type is the vendor holding its
maintenance contract in both studios; teams are the paper's sections (Metro, Sport, Politics) with
the room their morning conference meets in; the "projects" are specials and investigations with
look-alike titles by nature (Bus Lane Files beside Bus Lane Fines, Care Home Fees beside Care Home
Fires) with a publish date, an output slot (the front page, the 6pm bulletin) and a producer, who is
one of the world's own journalists.

Statements come as reporters' first-person chat ("they've swapped me to …", "new desk!!", "renewed
my press card"), newsdesk and planning notes in the third person ("has been moved onto the …
beat", "is now covering", "takes over", "hands over to"), pipe-separated beat lists, edit chains
and slot rows, semicolon and comma CSV with a header, upper-case CMS-style audit lines ("PRINT ED
… => …", "SLOT CHG", "PUB DATE MOVED"), engineering board and kit log lines, version audits,
running orders and planning grids, e-mails with From/Subject headers and a sign-off (Newsdesk,
Facilities, the Managing Editor's office, Broadcast Engineering, Procurement, the Editor's PA,
Planning, the Head of Output), corrections ("Correction: … not …", "Ignore my last", "Beat list
was wrong", "Typo on the grid") and "as of" lines. The value dates are written ``Thursday 4 March
2027``; the as-of dates also ``2027-03-04`` (audits and grids), ``4/3/27`` (beat lists, running
orders), ``4 Mar`` (seating plans and the engineering board, no year), ``March 4th`` (an agency
note, no year), ``Thu 04.03.2027`` (kit logs, room lists, the newsdesk) and "since Thursday". Tool
results are a newsroom directory record, a broadcast engineering asset register entry, a
procurement contracts list, the morning conference room booking of a section and a planning story
budget line, stamped ``04/03/2027 09:15``. Distractors name the subject and another value without
setting the slot: a one-off (a day minding another beat, an afternoon at a borrowed desk, an
editor subbing one splash, a technician called in overnight, a section in another room for a day,
a trail in another slot, a producer cutting one trail), a wish or a pitch, a losing bid, the rival
station's or paper's value, a flatmate's, questions and negations. Its random stream is seeded apart
from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh14-2026-12-07-blind-city-newsroom"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("beat", "desk", "press_pass_expiry", "print_editor", "web_editor"),
    "deployment": ("status", "sw_version", "technician"),
    "service": ("service_contract",),
    "team": ("conference_room",),
    "project": ("publish_date", "slot", "producer"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("producer",)
"""A special's producer is one of the world's journalists; editors and technicians come from pools of their own."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"print_editor": "web_editor", "web_editor": "print_editor"}
"""A journalist's print and web editors look alike (and a few of their names nearly match) but are not the same slot."""
VERSIONED = ("sw_version",)
"""The software a piece of studio kit runs, in ``VOCAB.version_style`` (``calver``: "2025.14")."""
DATED = ("press_pass_expiry", "publish_date")
"""Attributes whose values are future dates: a journalist's press card expiry, a special's publish date."""


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``Thursday 4 March 2027``); the ones without a year (``4 Mar``, ``March 4th``) and ``{weekday}``
    only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_slash": f"{date.day}/{date.month}/{date.strftime('%y')}",
            "date_dm": date.strftime("%-d %b"), "date_md": f"{date.strftime('%B')} {_ordinal(date.day)}",
            "date_dotted": date.strftime("%a %d.%m.%Y"), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Saoirse", "Sorcha"), ("Alistair", "Alastair"), ("Gareth", "Garreth"), ("Ffion", "Fion"),
                ("Osian", "Oisin"), ("Priyanka", "Priyanca"), ("Tegan", "Teagan"), ("Conor", "Connor"),
                ("Harriet", "Harriett"), ("Zara", "Zahra"), ("Nadine", "Nadene"), ("Marcus", "Markus"),
                ("Delyth", "Delith"), ("Ellis", "Elise"), ("Yusra", "Yusrah")),
    surnames=("Pemberton", "Adebayo", "Kowalski", "Mulholland", "Rashid", "Thorpe", "Llewellyn", "Varghese"),
    cities=("Wakefield", "Halifax", "Huddersfield", "Dewsbury", "Keighley", "Ilkley", "Otley", "Pudsey", "Harrogate",
            "Castleford", "Pontefract", "Batley", "Shipley", "Bingley", "Morley", "Selby"),
    employers=(),
    languages=(),
    roles=(),
    # Broadcast kit that both studios have.
    services=("vision mixer", "autocue", "talkback system", "playout server", "lighting console", "audio console",
              "PTZ camera rig", "graphics engine", "IP audio codec", "video wall", "comms matrix", "robotic pedestal",
              "ingest server", "tally controller", "presenter IFB"),
    environments=("Studio A", "Studio B"),
    service_statuses=("in service", "faulty", "away for repair", "on standby", "being re-rigged", "intermittent"),
    regions=(),
    owner_teams=(),
    # The paper's sections, said without an article ("Metro meet in …", "the Metro desk").
    teams=("Metro", "Sport", "Business", "Politics", "Features", "Pictures", "Digital", "Investigations", "Culture",
           "Opinion", "Data", "Podcasts"),
    # Specials and investigations; neighbours have look-alike titles by nature.
    projects=("Bus Lane Files", "Bus Lane Fines", "Tower Block Tapes", "Tower Block Tales", "Ward by Ward",
              "Word on the Ward", "Night Bus Diaries", "Night Shift Diaries", "Potholes Part One", "Potholes Part Two",
              "Canal Deaths Inquiry", "Canal Deals Inquiry", "School Places Special", "School Meals Special",
              "The Stadium Deal", "The Stadium Debt", "Empty Shops Audit", "Empty Shops Update", "Care Home Fees",
              "Care Home Fires"),
    project_statuses=(),
    version_style="calver",
    date_format="%A %-d %B %Y",
    foods=("bacon butties", "samosas", "pork pies", "parkin", "chip shop curry", "flapjacks"),
    topics=("the style guide refresh", "the election night rota", "the awards entries", "the media law refresher",
            "the new CMS training", "the Christmas quiz", "the mental health first-aiders", "the work experience week"),
    pools=(
        # Beats, said with "the … beat" or bare ("covers courts").
        ("beat", ("courts", "council", "transport", "health", "schools", "housing", "crime", "environment",
                  "universities", "faith")),
        # Hot desks, said with "desk" in front ("desk 2.07").
        ("desk", ("1.04", "1.09", "1.15", "2.02", "2.07", "2.11", "2.18", "3.03", "3.08", "3.16")),
        # Print and web editors come from two pools; a few names nearly match across them.
        ("print_editor", ("Maureen Blackwood", "Clive Hartnell", "Jas Sandhu", "Pauline Earnshaw", "Ken Oduya",
                          "Rosemary Tait", "Barney Cole", "Trevor Ollerenshaw", "Lin Chao", "Gordon Askew")),
        ("web_editor", ("Maureen Blackwell", "Clive Hartley", "Jaz Sandhu", "Paula Earnshaw", "Tom Fenwick",
                        "Ruby Stansfield", "Sanjay Mehta", "Fliss Whitaker", "Hugo Brennan", "Abi Okoro")),
        ("technician", ("Dev Chauhan", "Kath Rimmer", "Olu Bankole", "Stan Pickles", "Nat Greaves", "Jules Ferrier",
                        "Rab McInnes", "Shaz Akhtar", "Pete Dobson", "Iwona Lis")),
        ("service_contract", ("Northlight Broadcast Services", "Kestrel AV", "Halyard Systems", "Greyfriars Broadcast",
                              "Signalhouse Ltd", "Tallow & Finch AV", "Marlowe Technical", "Brightcast Support",
                              "Cathode Lane Engineering", "Redline Media Engineering")),
        # Rooms, said with "the" ("meet in the Caxton Room").
        ("conference_room", ("Caxton Room", "Fleet Room", "Wire Room", "Library", "Glass Box", "Old Print Hall",
                             "Cuttings Room", "Boardroom", "Green Room", "Mezzanine")),
        # Output slots, said with "the" ("going in the 6pm bulletin slot").
        ("slot", ("front page", "page 3 lead", "page 5 lead", "centre spread", "homepage lead", "6pm bulletin",
                  "10pm bulletin", "breakfast show", "Sunday magazine", "weekend podcast")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["beat"] = {
    "state": ["{s} covers the {v} beat.", "{s} is our {v} reporter.", "BEATS | {s} | {v}", "reporter;beat\n{s};{v}",
              "Anything on {v} goes to {s}, it's their patch."],
    "change": ["{s} has been moved onto the {v} beat, off {old}.", "{s} is now covering {v}; {old} goes to someone else.",
               "Beat swap: {s} {old} => {v}",
               "From: Newsdesk\nTo: All reporters\nSubject: Beat changes\n\nAs of today {s} takes over {v} and leaves {old}. "
               "Please route calls and embargoed releases accordingly.\n\nNewsdesk"],
    "first_state": ["I'm on the {v} beat.", "my beat's {v}, ping me if something comes in",
                    "I cover {v} for the paper and the website."],
    "first_change": ["Off {old} at last, I'm on the {v} beat now.", "new patch for me: {v} (bye bye {old})",
                     "They've swapped me to {v}, so don't send me {old} stuff any more."],
    "correction": ["Correction: {s} covers {v}, not {old}.", "Beat list was wrong - {s} is the {v} reporter, not {old}.",
                   "Ignore the earlier note: {s} is on {v}, {old} isn't their patch."],
    "as_of": ["As of {date}, {s} is the {v} reporter.", "Beat list {date_slash}: {s} - {v}", "{s} has been doing {v} since {weekday}.",
              "Newsdesk note, {date_dotted}: {s} on the {v} beat from today."],
    "distractor": ["{s} is minding the {x} beat today while its reporter is at an inquest.",
                   "{s} fancies a move to {x} at the next reshuffle.", "Did {s} write that {x} splash? The byline looked like theirs.",
                   "{s}'s flatmate does {x} for the rival paper.", "{s} isn't on {x}; they only sat in on one meeting about it."],
    "q_current": ["Which beat is {s} covering at the moment?"],
    "q_as_of": ["Which beat was {s} covering on {date}?"],
    "q_history": ["What beat did {s} have before {v}?"],
}
T["desk"] = {
    "state": ["{s} sits at desk {v}.", "Seating plan: {s} @ desk {v}", "{s}'s desk is {v}, by the window.", "desk,name\n{v},{s}",
              "Parcel for {s}? Leave it on desk {v}."],
    "change": ["{s} moved from desk {old} to desk {v}.", "DESK MOVE {s} {old} -> {v}",
               "{s} has swapped to desk {v}; {old} is free for the work experience lot.",
               "From: Facilities\nTo: Newsroom\nSubject: Seating changes\n\n{s} is now at desk {v} (previously {old}). Phones have "
               "been re-patched.\n\nFacilities"],
    "first_state": ["I'm at desk {v}.", "find me at desk {v}, second row", "My desk is {v} if you're dropping stuff off."],
    "first_change": ["Moved desks - I'm at {v} now, not {old}.", "new desk {v}!! {old} had the broken chair"],
    "correction": ["Correction: {s} is at desk {v}, not {old}.", "Seating plan typo: {s} sits at {v}, not at {old}."],
    "as_of": ["As of {date}, {s} sits at desk {v}.", "Seating plan {date_dm}: {s} - desk {v}", "{s} has been at desk {v} since {weekday}."],
    "distractor": ["{s} is borrowing desk {x} for the afternoon, the screens are better.", "{s} asked Facilities for desk {x}; no answer yet.",
                   "Is that {s} at desk {x}? The coat looks familiar.", "{s} doesn't sit at desk {x}; that's the subs' overflow."],
    "q_current": ["Which desk does {s} sit at now?"],
    "q_as_of": ["Which desk was {s} sitting at on {date}?"],
    "q_history": ["Which desk did {s} have before {v}?"],
}
T["press_pass_expiry"] = {
    "state": ["{s}'s press card expires on {v}.", "Press pass register | {s} | valid to {v}", "{s}'s press card runs until {v}.",
              "{s} needs a renewed press card by {v}, when the current one lapses."],
    "change": ["{s}'s press card now runs to {v} instead of {old}.", "Renewal processed: {s}, expiry {old} -> {v}",
               "From: Managing Editor's Office\nTo: {s}\nSubject: Press card renewal\n\nYour renewed card is valid until {v}. "
               "The old one with the {old} expiry can be cut up.\n\nME's office"],
    "first_state": ["My press card expires {v}.", "press pass runs out {v}, remind me nearer the time"],
    "first_change": ["Renewed my press card - good until {v} now, not {old}.", "pass expiry's {v} now (was {old}), sorted"],
    "correction": ["Correction: {s}'s press card expires {v}, not {old}.",
                   "The register had {s}'s pass wrong - expiry is {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s press card is valid until {v}.", "Pass audit {date_iso}: {s}, expires {v}",
              "Register check {date_slash} - {s} good until {v}"],
    "q_current": ["When does {s}'s press card expire?"],
    "q_as_of": ["When was {s}'s press card due to expire, as the register stood on {date}?"],
    "q_history": ["What was {s}'s press card expiry before {v}?"],
}
T["print_editor"] = {
    "state": ["{s}'s print editor is {v}.", "In the paper, {s}'s copy goes through {v}.", "Edit chain | {s} | PRINT | {v}",
              "{v} handles {s}'s stories for the print edition."],
    "change": ["{s} now files to {v} for print; {old} has another patch.", "PRINT ED {s}: {old} => {v}",
               "{old} hands {s} over to {v} on the print side.", "{v} takes over editing {s} for the paper, replacing {old}."],
    "first_state": ["For the paper my editor is {v}.", "{v} edits my print copy"],
    "first_change": ["Print editor changed, I file to {v} now, not {old}.", "{v} has me for the paper now, {old} moved on"],
    "correction": ["Correction: {s}'s print editor is {v}, not {old}.",
                   "Got the edit chain wrong - {s} files print copy to {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s print editor is {v}.", "Edit chain {date_iso}: {s} / PRINT / {v}",
              "{s} has been filing to {v} for print since {weekday}."],
    "distractor": ["{x} subbed {s}'s splash last night because the usual editor was off.", "{s} would love {x} as print editor.",
                   "Is {x} doing {s}'s print edits now?", "{x} is the print editor for sport, nothing to do with {s}."],
    "q_current": ["Who is {s}'s print editor now?"],
    "q_as_of": ["Who was {s}'s print editor on {date}?"],
    "q_history": ["Who edited {s}'s print copy before {v}?"],
}
T["web_editor"] = {
    "state": ["{s}'s web editor is {v}.", "Online, {v} publishes {s}'s stories.", "Edit chain | {s} | WEB | {v}",
              "{v} signs off {s}'s pieces for the website."],
    "change": ["{s}'s web editor is now {v}, taking over from {old}.", "WEB ED {s}: {old} => {v}",
               "{old} has handed {s}'s online copy to {v}."],
    "first_state": ["{v} is my web editor.", "online my stuff goes through {v}"],
    "first_change": ["I'm with {v} for web now, no longer {old}.", "web editor swap: {v} in, {old} out"],
    "correction": ["Correction: {s}'s web editor is {v}, not {old}.", "Wrong name earlier - {s}'s web copy goes to {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s web editor is {v}.", "Edit chain {date_iso}: {s} / WEB / {v}",
              "{v} has been {s}'s web editor since {weekday}."],
    "distractor": ["{x} pushed {s}'s story live overnight as a one-off.", "{s} has asked to work with {x} online.",
                   "Is {x} {s}'s web editor these days?", "{x} runs the live blogs, not {s}'s copy."],
    "q_current": ["Who is {s}'s web editor now?"],
    "q_as_of": ["Who was {s}'s web editor on {date}?"],
    "q_history": ["Who was {s}'s web editor before {v}?"],
}
T["status"] = {
    "state": ["The {svc} down in {env} is {v}.", "ENG BOARD {env} :: {svc} :: {v}", "Gallery check, {env}: {svc} {v}.",
              "{env} {svc} status - {v}", "Kit log: {env}/{svc} showing {v}"],
    "change": ["The {env} {svc} is {v} now - it was {old}.", "Engineering: {env} {svc} now {v} (was {old}).",
               "Fault log update - {svc}, {env}: {old} > {v}",
               "From: Broadcast Engineering\nTo: Output; Gallery directors\nSubject: {env} {svc}\n\nThe {svc} in {env} is {v} as of "
               "this morning, no longer {old}. Plan rehearsals round it.\n\nEngineering"],
    "correction": ["Correction: the {svc} in {env} is {v}, not {old} - that was the other studio.",
                   "Ignore my last on the {env} {svc}: {v}, not {old}."],
    "as_of": ["As of {date}, engineering has the {svc} in {env} as {v}.", "KIT LOG {date_dotted} {env} {svc}: {v}",
              "Engineering have shown the {env} {svc} as {v} since {weekday}.", "Engineering board {date_dm}: {env} {svc} {v}"],
    "distractor": ["If the {env} {svc} turns out {x} before the 6, ring engineering straight away.",
                   "Is the {env} {svc} {x}? The director swore at it twice.",
                   "The {svc} in the radio car is {x}, not the one in {env}.",
                   "Someone asked whether the {env} {svc} was {x}; nobody from engineering has looked yet."],
    "q_current": ["What condition is the {env} {svc} in now?"],
    "q_as_of": ["What condition was the {env} {svc} in on {date}?"],
    "q_history": ["What condition was the {env} {svc} in before it was {v}?"],
}
T["sw_version"] = {
    "state": ["The {svc} in {env} is running software {v}.", "{env} {svc}: sw {v}", "Version audit - {env} / {svc} / {v}",
              "room,kit,software\n{env},{svc},{v}"],
    "change": ["The {env} {svc} has been upgraded from {old} to {v}.",
               "Engineering pushed {v} to the {svc} in {env}; {old} is kept as the rollback.", "SW UPD {env} {svc} {old} -> {v} done",
               "From: Broadcast Engineering\nSubject: {env} {svc} software\n\nOvernight we moved the {svc} in {env} onto {v} from "
               "{old}. Shout if anything behaves oddly in rehearsal.\n\nEngineering"],
    "correction": ["Correction: the {env} {svc} runs software {v}, not {old}.", "Version audit had it wrong: {env} {svc} runs {v}, not {old}."],
    "as_of": ["As of {date}, the {svc} in {env} is on software {v}.", "Version audit {date_iso}: {env} {svc} {v}",
              "{env} {svc} has been on {v} since {weekday}."],
    "q_current": ["Which software version is the {svc} in {env} running?"],
    "q_as_of": ["Which software version was the {svc} in {env} running on {date}?"],
    "q_history": ["Which software version did the {svc} in {env} run before {v}?"],
}
T["technician"] = {
    "state": ["{v} is the technician for the {svc} in {env}.", "{env} {svc} - tech: {v}", "If the {env} {svc} plays up, call {v}.",
              "kit owners\n{env} / {svc} / {v}"],
    "change": ["{v} has picked up the {env} {svc} from {old}.", "TECH REASSIGN {env} {svc}: {old} -> {v}",
               "{old} hands the {svc} in {env} over to {v} and moves to outside broadcasts."],
    "correction": ["Correction: {v} is the tech on the {env} {svc}, not {old}.",
                   "Kit owners list was wrong - {v} looks after the {svc} in {env}, not {old}."],
    "as_of": ["As of {date}, {v} looks after the {svc} in {env}.", "Kit owners {date_slash}: {env} {svc} - {v}",
              "{v} has been the {env} {svc}'s technician since {weekday}."],
    "distractor": ["{x} is minding the {env} {svc} this week while its usual tech is on leave.",
                   "{x} got called in once overnight to reboot the {svc} in {env}.",
                   "Could {x} have a look at the {env} {svc} before the lunchtime bulletin?",
                   "{x} looks after the {svc} in the radio car, not the one in {env}."],
    "q_current": ["Which technician looks after the {svc} in {env}?"],
    "q_as_of": ["Which technician looked after the {svc} in {env} on {date}?"],
    "q_history": ["Who looked after the {env} {svc} before {v}?"],
}
T["service_contract"] = {
    "state": ["The {svc} service contract sits with {v}.", "Contracts register\n{svc}: {v}",
              "Kit type: {svc}\nMaintained under contract by: {v}", "For a vendor callout on any {svc}, either studio, it's {v}."],
    "change": ["The {svc} contract has moved from {old} to {v}.", "{v} won the {svc} maintenance contract at renewal, replacing {old}.",
               "From: Procurement\nTo: Broadcast Engineering\nSubject: {svc} maintenance\n\n{v} now hold the service contract for "
               "the {svc} in Studio A and Studio B; {old}'s contract has ended.\n\nProcurement"],
    "correction": ["Correction: {v} hold the {svc} contract, not {old}.", "Register fix: {svc} maintenance is {v}'s, not {old}'s."],
    "as_of": ["As of {date}, {v} hold the {svc} contract.", "Contracts register {date_iso}: {svc} - {v}",
              "The {svc} contract has been {v}'s since {weekday}."],
    "distractor": ["{x} pitched for the {svc} contract but lost on price.", "Should {x} be asked to tender for the {svc} work next year?",
                   "The rival station uses {x} for its {svc}.", "{x} supplied the {svc} originally; they don't maintain it.",
                   "{x} did one emergency callout on the {svc} when the contractor couldn't."],
    "q_current": ["Who holds the maintenance contract for the {svc}?"],
    "q_as_of": ["Who held the {svc} maintenance contract on {date}?"],
    "q_history": ["Who held the {svc} maintenance contract before {v}?"],
}
T["conference_room"] = {
    "state": ["The {team} desk holds its morning conference in the {v}.", "Morning conference - {team}: {v}",
              "{team} meet at half nine in the {v}.", "Rooms\n{team} conf >> {v}"],
    "change": ["{team} have moved their morning conference from the {old} to the {v}.", "ROOM CHG {team} conf: {old} -> {v}",
               "From: Editor's PA\nSubject: {team} conference\n\nThe {team} morning conference is now in the {v}; the {old} is "
               "being refitted.\n\nThanks"],
    "correction": ["Correction: {team} conference is in the {v}, not the {old}.",
                   "Wrong room on the list - {team} meet in the {v}, not the {old}."],
    "as_of": ["As of {date}, the {team} conference meets in the {v}.", "Room list {date_dotted}: {team} - {v}",
              "{team} have been meeting in the {v} since {weekday}."],
    "distractor": ["{team} are in the {x} today only, their usual room has the auditors in.",
                   "{team} keep asking for the {x}, it has the big screen.", "Were {team} in the {x} this morning? Heard shouting.",
                   "{team} don't use the {x}; that's kept for the editor's lunches."],
    "q_current": ["Where does the {team} desk hold its morning conference now?"],
    "q_as_of": ["Where did {team} hold morning conference on {date}?"],
    "q_history": ["Where did {team} hold morning conference before the {v}?"],
}
T["publish_date"] = {
    "state": ["{p} is due to publish on {v}.", "Planning grid\n{p} | pub {v}", "{p} runs {v}.", "The special {p} is pencilled for {v}."],
    "change": ["{p} has slipped from {old} to {v}.", "PUB DATE MOVED {p}: {old} -> {v}",
               "Legal want another read, so {p} moves to {v} (was {old}).",
               "From: Planning\nTo: Output; Digital\nSubject: {p}\n\n{p} now publishes {v}, not {old}. Trails and social to be "
               "rescheduled.\n\nPlanning"],
    "correction": ["Correction: {p} publishes {v}, not {old}.", "Typo on the grid: {p} goes out {v}, not {old}."],
    "as_of": ["As of {date}, {p} is set to publish {v}.", "Planning grid {date_iso}: {p} pub {v}",
              "Agency note {date_md}: {p} to run {v}", "Output meeting, {date_dotted}: {p} confirmed for {v}"],
    "q_current": ["When is {p} due to publish?"],
    "q_as_of": ["When was {p} due to publish, according to the grid on {date}?"],
    "q_history": ["What was {p}'s publish date before {v}?"],
}
T["slot"] = {
    "state": ["{p} is going in the {v} slot.", "SLOT | {p} | {v}", "{p} has the {v}.", "running order\n{p} -> {v}"],
    "change": ["{p} has been bumped from the {old} to the {v}.", "SLOT CHG {p}: {old} -> {v}",
               "Output meeting: {p} comes off the {old} and goes in the {v}.",
               "From: Head of Output\nSubject: {p}\n\n{p} now takes the {v} slot. We're filling the {old} with something else."
               "\n\nOutput"],
    "correction": ["Correction: {p} is in the {v}, not the {old}.", "Running order was wrong - {p} is the {v}, not the {old}."],
    "as_of": ["As of {date}, {p} is slotted for the {v}.", "Running order {date_slash}: {p} in the {v}",
              "{p} has been down for the {v} since {weekday}."],
    "distractor": ["{p} might get a trail in the {x} if there's space.", "The editor wondered whether {p} could lead the {x} instead.",
                   "Is {p} in the {x}? Someone saw it on a draft list.", "{p} won't be in the {x}; that's wall-to-wall election."],
    "q_current": ["Which slot is {p} going in?"],
    "q_as_of": ["Which slot was {p} down for on {date}?"],
    "q_history": ["Which slot was {p} down for before the {v}?"],
}
T["producer"] = {
    "state": ["{v} is producing {p}.", "Producer on {p}: {v}", "Questions about the {p} package go to {v}.", "{p} - prod. {v}"],
    "change": ["{v} has taken over producing {p} from {old}.", "PRODUCER CHG {p}: {old} -> {v}",
               "{old} hands over {p} to {v} and goes back on shifts."],
    "correction": ["Correction: {v} is producing {p}, not {old}.", "Planning had the wrong producer on {p}: it's {v}, not {old}."],
    "as_of": ["As of {date}, {v} is producing {p}.", "Planning grid {date_dotted}: {p} producer {v}",
              "{v} has been producing {p} since {weekday}."],
    "distractor": ["{x} is cutting a trail for {p} today, just helping out.", "{x} wants to produce {p} if it becomes a series.",
                   "Was {x} on the {p} edit last night?", "{x} produces the special after {p}, not {p} itself."],
    "q_current": ["Who is producing {p}?"],
    "q_as_of": ["Who was producing {p} on {date}?"],
    "q_history": ["Who produced {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A newsroom directory record, a broadcast engineering asset register entry, a procurement
    # contracts list, a section's morning conference booking and a planning story budget line.
    "person": ("directory.newsroom_staff", {"staffer": "{s}", "org": "City News Group", "record": {"{key}": "{v}", "feed": "HR"}}),
    "deployment": ("engineering.asset_register", {"kit": "{svc}", "room": "{env}", "current": {"{key}": "{v}"},
                                                  "register": "broadcast engineering"}),
    "service": ("procurement.contracts", {"contracts": [{"covers": "{svc}", "studios": "A+B", "{key}": "{v}"}]}),
    "team": ("rooms.daily_conference", {"section": "{team}", "meeting": "morning conference", "{key}": "{v}"}),
    "project": ("planning.story_budget", {"budget_line": {"title": "{p}", "type": "special", "{key}": "{v}"}}),
}
TOOL_STAMP = ("synced", "%d/%m/%Y %H:%M")
JSON_KEYS = {"beat": "beat", "desk": "desk_no", "press_pass_expiry": "press_card_expires", "print_editor": "print_editor",
             "web_editor": "web_editor", "status": "kit_state", "sw_version": "software", "technician": "assigned_tech",
             "service_contract": "contract_holder", "conference_room": "room", "publish_date": "pub_date",
             "slot": "output_slot", "producer": "producer"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Fire alarm test on {weekday} at {time}, ignore it unless it keeps going.",
        "{name} left a tray of {food} by the picture editor's screen, help yourselves.",
        "Anyone got a contact in the {city} council press office? Asking for {name}.",
        "Subs are {n} minutes behind on the late pages, go easy on rewrites.",
        "Reminder: {topic} is on {weekday}, names to the newsdesk by {time}.",
        "The lift to the studio floor is out again, {name} is lugging the tripod up the stairs.",
        "Weather for {city} tomorrow: {weather}. Vox pop crews, take coats.",
        "{name}'s leaving do is {weekday} at the Printer's Devil, {time} onwards.",
        "Traffic's solid on the {city} road, {name} will be late for the doorstep.",
        "Whoever took {name}'s phone charger from the sports corner, please bring it back.",
        "Canteen has {food} on {weekday}, get in before the queue.",
        "{name} has {n} voicemails from the same reader in {city} about the bins.",
    ],
    "tool": [
        '{{"wire_alert": {{"agency": "PA", "dateline": "{city}", "priority": {n}, "words": {n2}}}}}',
        '{{"weather_feed": {{"town": "{city}", "max_c": {n}, "outlook": "{weather}"}}}}',
        '{{"expenses": {{"claimant": "{name}", "mileage": {n}, "day": "{weekday}"}}}}',
        '{{"story_stats": {{"story_id": "A{n}{n2}", "uniques": {n}, "top_referrer": "search"}}}}',
    ],
    "tool_names": ["wires.alert", "weather.feed", "finance.expenses", "analytics.story_stats"],
}

REPORTERS = (("Gwen", "user:gwen.newsdesk"), ("Oz", "user:oz.output"), ("Bharti", "user:bharti.planning"))
LOW_TRUST = (("document", "doc:newsroom-contacts-book-2024.docx"), ("document", "doc:seating-and-beats-plan-v3.pdf"),
             ("peer", "agent:wires-digest-bot"))
