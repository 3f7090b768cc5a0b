"""The fifth template set, ``fresh3``: a blind world written by someone who never read the engine,
its lexicons, its architecture notes or its belief tests, so no extraction rule was tuned on it.

It keeps the world's machinery (five entity kinds, two look-alike deployments per "service",
status observations that go stale) but puts other things in it. People carry a dentist, a GP
(a look-alike pair: two doctors of one person), a commute mode, a parking bay and an emergency
contact; the "deployments" are office devices in two look-alike wings (a label printer in the
east wing and one in the west wing) with a state, a firmware version ("FW3.07") and an update
channel; the "service" of a device type is who repairs it; teams have a standup time; the
"projects" are office sites with a fire warden, a caterer and a fire-drill date.

Changes are said in shapes the other sets do not use: "has since gone over to", "no longer X —
it's Y now", passive voice ("was flashed with", "was reassigned from X to Y"), dialogue ("“Still
at X?” “Nope, …”"), bullet log lines ("- label printer (east wing) FW3.07 -> FW3.09"), and dates
in three formats (``Mar 4 2026``, ``2026-03-04``, ``4th of March 2026``, ``04-Mar-2026``).
Distractors name the subject and another value of the slot's kind without setting the slot: a
one-off ("came in by tram today because of the strike"), a relative, a refused quote, a meeting
that is not the standup, a device of the same type elsewhere. Its random stream is seeded apart
from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh3-2026-12-03-blind"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("dentist", "gp", "commute", "parking_bay", "emergency_contact"),
    "deployment": ("status", "firmware", "firmware_channel"),
    "service": ("repairer",),
    "team": ("standup",),
    "project": ("fire_warden", "caterer", "fire_drill"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("fire_warden",)
"""Attributes whose values are the world's people."""
SELF_EXCLUDED = ("emergency_contact",)
"""Person-valued attributes of a person that never name the person themself."""
SIBLINGS = {"dentist": "gp", "gp": "dentist"}
"""Two slots of one person that look alike (both a doctor) but are not the same slot."""
VERSIONED = ("firmware",)
"""Attributes whose values are versions in ``VOCAB.version_style``."""
DATED = ("fire_drill",)
"""Attributes whose values are future dates."""


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other formats this set's statements use (``{date}`` is ``VOCAB.date_format``)."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_log": date.strftime("%d-%b-%Y"),
            "date_ordinal": f"{_ordinal(date.day)} of {date.strftime('%B %Y')}"}


VOCAB = Vocabulary(
    name_pairs=(("Rosa", "Rosie"), ("Tariq", "Tarek"), ("Maren", "Karen"), ("Anton", "Antonia"), ("Beatrix", "Beatrice"),
                ("Cyril", "Cyrille"), ("Daphne", "Daphna"), ("Ewan", "Euan"), ("Freya", "Freja"), ("Hamid", "Hamed"),
                ("Ilse", "Ilsa"), ("Leila", "Layla"), ("Omar", "Omer"), ("Quentin", "Quinten"), ("Signe", "Signy")),
    surnames=("Adeyemi", "Bergstrom", "Carvalho", "Duarte", "Fitzgerald", "Gruenwald", "Hosseini", "Jablonski"),
    cities=("Bordeaux", "Rotterdam", "Basel", "Innsbruck", "Lausanne", "Palermo", "Bari", "Galway", "Dundee", "Uppsala",
            "Odense", "Lodz", "Plovdiv", "Cluj", "Split", "Kaunas"),
    employers=(),
    languages=(),
    roles=(),
    services=("label printer", "lobby kiosk", "door controller", "wall display", "thermostat", "parcel locker",
              "ticket scanner", "room panel", "CCTV recorder", "PA amplifier", "time clock", "fire panel",
              "visitor tablet", "water cooler", "smart lock"),
    environments=("east wing", "west wing"),
    service_statuses=("online", "in standby", "out of order", "disconnected", "overheating"),
    regions=(),
    owner_teams=(),
    teams=("Lynx", "Otter", "Badger", "Marten", "Stoat", "Beaver", "Hare", "Mole", "Vole", "Weasel"),
    projects=("Old Mill", "Dockside", "Canal Wharf", "Larkhill", "Foundry Yard", "Quayside", "Ropewalk", "Tannery",
              "Brewhouse", "Sawmill", "Granary", "Maltings", "Boatyard", "Glassworks", "Chapel Street", "Kiln Lane",
              "Wharf Road", "Signal Box", "Pumphouse", "Weighbridge"),
    project_statuses=(),
    version_style="firmware",
    date_format="%b %-d %Y",
    foods=("shakshuka", "jollof rice", "risotto", "bao buns", "tagine", "smorrebrod"),
    topics=("the carol concert", "the fridge clean-out", "the photography club", "the first-aid course", "the plant swap",
            "the recycling audit", "the chess ladder", "the lost property box"),
    pools=(
        ("dentist", ("Dr. Haverkamp", "Dr. Oyelaran", "Dr. Castellanos", "Dr. Lindgren", "Dr. Ferrante", "Dr. Szabo",
                     "Dr. Quaye", "Dr. Mortensen")),
        ("gp", ("Dr. Whitlock", "Dr. Nakagawa", "Dr. Petrosyan", "Dr. Abernethy", "Dr. Rautio", "Dr. Delacroix",
                "Dr. Kovacic", "Dr. Mwangi")),
        ("commute", ("bike", "train", "tram", "bus", "car", "ferry", "e-scooter", "motorbike")),
        # Forty bays, so that two people rarely share one.
        ("parking_bay", tuple(f"{row}-{n:02d}" for row in "ABCDE" for n in (3, 7, 9, 12, 15, 18, 21, 26))),
        ("firmware_channel", ("general release", "beta", "early access", "long-term support", "insider", "security-only")),
        ("repairer", ("Kestrel Facilities", "Brightwire Services", "Halden & Moss", "Fixright Technical",
                      "Orchard Field Services", "Tallis Maintenance", "Greyhound Repairs", "Upland Engineering")),
        ("standup", ("8:45 am", "9:05 am", "9:20 am", "9:50 am", "10:10 am", "10:40 am", "11:15 am", "1:45 pm", "2:20 pm")),
        ("caterer", ("Saffron & Sage", "Greenleaf Kitchens", "The Daily Ladle", "Copper Pot Catering", "Fig & Fennel",
                     "Harvest Table", "Brightbowl", "Marrow Lane Foods")),
    ),
)


def firmware_versions(rng: Any, count: int) -> list[str]:
    """Firmware labels in release order: "FW3.07", "FW3.09", "FW4.01"."""
    major, minor = rng.randint(2, 6), rng.randint(0, 40)
    out = []
    for _ in range(count):
        out.append(f"FW{major}.{minor:02d}")
        major, minor = (major + 1, 1) if minor > 80 or rng.random() < 0.2 else (major, minor + rng.randint(1, 9))
    return out


T: dict[str, dict[str, list[str]]] = {}
T["dentist"] = {
    "state": ["For check-ups {s} goes to {v}.", "{s} is registered with {v} for dental care.", "{s} sees {v} about their teeth."],
    "change": ["{s} has since gone over to {v} for dental care.", "{s} no longer sees {old} about their teeth — it's {v} now.",
               "{s}'s dental records were transferred from {old} to {v}."],
    "first_state": ["Been going to {v} for check-ups for years.", "I'm registered with {v} for my teeth."],
    "first_change": ["“Still at {old}?” “Nope, I'm registered with {v} now.”",
                     "Moved my dental care over to {v}, {old} was too far away."],
    "correction": ["Wrong dentist on file for {s}: it's {v}, not {old}."],
    "as_of": ["Since the {date_ordinal}, {s} has been seeing {v} for dental care.",
              "{date_iso}: {s} registered with {v} as their dentist."],
    "distractor": ["{s} took their son to {x} for a filling.", "{s} has heard good things about {x}.",
                   "{s}'s partner is a patient of {x}.", "{s} had a one-off emergency appointment with {x} while on holiday."],
    "q_current": ["Who does {s} see for dental care now?"],
    "q_as_of": ["Who did {s} see for dental care on {date}?"],
    "q_history": ["Who did {s} see for dental care before switching to {v}?"],
}
T["gp"] = {
    "state": ["{s} is on {v}'s patient list.", "{v} is the family doctor for {s}.", "{s} is registered as a GP patient of {v}."],
    "change": ["After switching surgeries, {s} has {v} as GP.", "{s} was moved off {old}'s list and onto {v}'s.",
               "{s} is no longer with {old} — {v} is the GP now."],
    "first_state": ["{v} is my GP.", "I'm on {v}'s list at the surgery."],
    "first_change": ["Finally saw {v}, my new GP since {old} stopped taking patients.",
                     "Q: still with {old}? A: no, {v} is my GP now."],
    "correction": ["Correction for the records: {s}'s family doctor is {v}. {old} was listed by mistake."],
    "as_of": ["From {date_log} onwards, {s}'s GP is {v}.", "{s} became a patient of {v} on {date}."],
    "distractor": ["{s} was seen by {x} at the walk-in clinic.", "{s}'s mother is registered with {x}.",
                   "{x} covered the surgery the week {s} had the flu.", "{s} asked a friend whether {x} is any good."],
    "q_current": ["Which doctor is {s}'s GP now?"],
    "q_as_of": ["Which doctor was {s}'s GP on {date}?"],
    "q_history": ["Which doctor was {s}'s GP before {v}?"],
}
T["commute"] = {
    "state": ["{s} comes in by {v} most days.", "{s} gets to work by {v}.", "{s}'s usual commute is by {v}."],
    "change": ["{s} has since gone over to commuting by {v}.", "{s} no longer comes in by {old} — it's the {v} now.",
               "{s} gave up on the {old} and commutes by {v} these days."],
    "first_state": ["I come in by {v}.", "My commute's by {v}, about forty minutes door to door."],
    "first_change": ["Ditched the {old}, I come in by {v} now.", "New commute for me: {v} instead of {old}."],
    "correction": ["Not {old}, sorry: {s} commutes by {v}."],
    "as_of": ["{s} switched to commuting by {v} on the {date_ordinal}.", "Commute survey, {date_iso}: {s} travels in by {v}."],
    "distractor": ["{s} came in by {x} today because of the strike.", "{s} is thinking about commuting by {x} next year.",
                   "{s}'s kids go to school by {x}.", "{s} went to the airport by {x} on Friday."],
    "q_current": ["How does {s} get to work now?"],
    "q_as_of": ["How did {s} get to work on {date}?"],
    "q_history": ["How did {s} get to work before going by {v}?"],
}
T["parking_bay"] = {
    "state": ["{s} parks in bay {v}.", "Bay {v} is allocated to {s}.", "{s}'s car goes in bay {v}."],
    "change": ["{s}'s parking was reassigned from bay {old} to bay {v}.", "{s} gave bay {old} back and was given bay {v}.",
               "{s} no longer has bay {old} — it's bay {v} now."],
    "first_state": ["I park in bay {v}.", "Bay {v} is mine, please don't park there."],
    "first_change": ["Heads up, I've moved from bay {old} to bay {v}.", "They've given me bay {v}; bay {old} is free now."],
    "correction": ["The car park list had it wrong: {s} parks in bay {v}, not {old}."],
    "as_of": ["Parking allocation effective {date_log}: {s} in bay {v}.", "{s} has had bay {v} since {date}."],
    "distractor": ["{s} parked in bay {x} for a day while it was free.", "{s} asked facilities whether bay {x} might come up.",
                   "A visitor for {s} was put in bay {x}."],
    "q_current": ["Which parking bay does {s} use now?"],
    "q_as_of": ["Which parking bay did {s} use on {date}?"],
    "q_history": ["Which parking bay did {s} use before bay {v}?"],
}
T["emergency_contact"] = {
    "state": ["{v} is the emergency contact listed for {s}.", "In an emergency, call {v} for {s}.",
              "{s} named {v} as their emergency contact."],
    "change": ["{s}'s emergency contact was changed to {v}.", "{s} took {old} off the emergency form and put {v} down instead."],
    "first_state": ["If anything happens to me, call {v}.", "My emergency contact is {v}."],
    "first_change": ["Updated my emergency contact: {v}, not {old} any more.",
                     "If something happens to me please call {v} now, not {old}."],
    "correction": ["The emergency form for {s} was wrong, the contact is {v} and not {old}."],
    "as_of": ["{v} has been {s}'s emergency contact since the {date_ordinal}.",
              "As per the form dated {date_iso}, {s}'s emergency contact is {v}."],
    "distractor": ["{s} gave {x} a lift home after the party.", "{s} and {x} share a desk on Tuesdays.",
                   "{s} listed {x} as a reference for a flat."],
    "q_current": ["Who is the emergency contact for {s} now?"],
    "q_as_of": ["Who was the emergency contact for {s} on {date}?"],
    "q_history": ["Who was the emergency contact for {s} before {v}?"],
}
T["status"] = {
    "state": ["Facilities check: the {svc} in the {env} is {v}.", "[device-watch] {svc} / {env}: {v}",
              "The {svc} in the {env} was {v} on the morning walk-round."],
    "change": ["The {svc} in the {env} is now {v}; it was {old} before.", "- {svc} ({env}) {old} → {v}",
               "The {svc} in the {env} was reported {v} by the night guard."],
    "correction": ["Ignore the earlier note, the {svc} in the {env} is {v} rather than {old}."],
    "as_of": ["Since the {date_ordinal} the {svc} in the {env} has been {v}.", "{date_log} walk-round: {svc} in the {env} {v}."],
    "distractor": ["If the {svc} in the {env} is ever {x}, log a ticket with facilities.",
                   "The {svc} in the basement is {x}, nothing to do with the {env} one.",
                   "The {svc} in the {env} should never be left {x} overnight."],
    "q_current": ["What's the current condition of the {svc} in the {env}?"],
    "q_as_of": ["What was the condition of the {svc} in the {env} on {date}?"],
    "q_history": ["What was the condition of the {svc} in the {env} before it was {v}?"],
}
T["firmware"] = {
    "state": ["The {svc} in the {env} runs firmware {v}.", "Firmware on the {svc} in the {env}: {v}.",
              "{v} is the firmware on the {svc} in the {env}."],
    "change": ["The {svc} in the {env} was flashed with {v}.", "- {svc} ({env}) firmware {old} -> {v}",
               "The {svc} in the {env} is no longer on {old} — it's on {v} now."],
    "correction": ["Typo in the asset sheet: the {svc} in the {env} has {v}, not {old}."],
    "as_of": ["Flashed on {date_log}: {svc} in the {env}, firmware {v}.", "The {svc} in the {env} has run {v} since the {date_ordinal}."],
    "q_current": ["What firmware does the {svc} in the {env} have now?"],
    "q_as_of": ["What firmware did the {svc} in the {env} have on {date}?"],
    "q_history": ["What firmware did the {svc} in the {env} have before {v}?"],
}
T["firmware_channel"] = {
    "state": ["The {svc} in the {env} takes updates from the {v} channel.", "Update channel for the {svc} in the {env}: {v}.",
              "The {svc} in the {env} is enrolled in the {v} channel."],
    "change": ["The {svc} in the {env} has since gone over to the {v} channel.",
               "The {svc} in the {env} was moved off the {old} channel and onto {v}."],
    "correction": ["Correction to the device list: the {svc} in the {env} follows the {v} channel, not {old}."],
    "as_of": ["From {date_iso} the {svc} in the {env} follows the {v} channel."],
    "distractor": ["We're trialling the {x} channel on a spare {svc}, not the {env} one.",
                   "The vendor pushes the {x} channel for every new {svc}."],
    "q_current": ["Which update channel does the {svc} in the {env} follow now?"],
    "q_as_of": ["Which update channel did the {svc} in the {env} follow on {date}?"],
    "q_history": ["Which update channel did the {svc} in the {env} follow before the {v} channel?"],
}
T["repairer"] = {
    "state": ["Repairs on our {svc}s are handled by {v}.", "{v} holds the maintenance contract for the {svc}s.",
              "Call {v} if a {svc} breaks."],
    "change": ["The {svc} maintenance contract went from {old} to {v}.",
               "{old}'s contract for the {svc}s ran out; {v} services them now."],
    "correction": ["Wrong vendor in the wiki: {svc} repairs are {v}'s job, not {old}'s."],
    "as_of": ["{v} took over {svc} repairs on {date}."],
    "distractor": ["{x} sent us a quote for servicing the {svc}s, which we turned down.",
                   "{x} also repairs {svc}s for the building next door."],
    "q_current": ["Who repairs our {svc}s now?"],
    "q_as_of": ["Who repaired our {svc}s on {date}?"],
    "q_history": ["Who repaired our {svc}s before {v}?"],
}
T["standup"] = {
    "state": ["The {team} team's standup starts at {v}.", "Standup for {team} is at {v} sharp.",
              "{team} meets for standup at {v} every weekday."],
    "change": ["The {team} standup has been moved from {old} to {v}.", "{team} standup is no longer at {old} — it's {v} now.",
               "“When's the {team} standup now?” “{v}, they moved it off {old}.”"],
    "correction": ["My mistake earlier: the {team} standup is at {v}, not {old}."],
    "as_of": ["Starting the {date_ordinal}, {team} holds standup at {v}."],
    "distractor": ["The {team} team has a retro at {x} on Fridays.", "{team} moved their planning meeting to {x}.",
                   "The {team} team's sprint review is at {x} on Thursdays."],
    "q_current": ["What time is the {team} standup now?"],
    "q_as_of": ["What time was the {team} standup on {date}?"],
    "q_history": ["What time was the {team} standup before {v}?"],
}
T["fire_warden"] = {
    "state": ["{v} is the fire warden at the {p} office.", "At the {p} office the fire warden is {v}.",
              "Fire warden for the {p} office: {v}."],
    "change": ["{v} has taken over from {old} as fire warden at the {p} office.",
               "The {p} office's fire warden duty was handed to {v}."],
    "correction": ["Correction to the safety board: the {p} office's fire warden is {v}, not {old}."],
    "as_of": ["{v} was appointed fire warden for the {p} office on the {date_ordinal}."],
    "distractor": ["{x} helped check the extinguishers at the {p} office.", "{x} was first out during the {p} office drill.",
                   "{x} did the fire safety course with the {p} office people."],
    "q_current": ["Who is the fire warden at the {p} office now?"],
    "q_as_of": ["Who was the fire warden at the {p} office on {date}?"],
    "q_history": ["Who was the fire warden at the {p} office before {v}?"],
}
T["caterer"] = {
    "state": ["The canteen at the {p} office is run by {v}.", "{v} does the lunches at the {p} office.",
              "Lunch at the {p} office comes from {v}."],
    "change": ["The canteen at the {p} office has since gone over to {v}.",
               "The {p} office no longer gets lunch from {old} — it's {v} now.",
               "After the tender, the {p} office canteen is {v}."],
    "correction": ["Sorry, wrong caterer: the {p} office canteen is {v}, not {old}."],
    "as_of": ["{v} started serving the {p} office canteen on {date_log}."],
    "distractor": ["{x} catered the summer party at the {p} office.", "{x} pitched for the {p} office canteen and lost.",
                   "Someone brought {x} sandwiches to the {p} office meeting."],
    "q_current": ["Who runs the canteen at the {p} office now?"],
    "q_as_of": ["Who ran the canteen at the {p} office on {date}?"],
    "q_history": ["Who ran the canteen at the {p} office before {v}?"],
}
T["fire_drill"] = {
    "state": ["The next fire drill at the {p} office is on {v}.", "Fire drill at the {p} office: {v}.",
              "The {p} office has its fire drill booked for {v}."],
    "change": ["The {p} office fire drill was pushed from {old} to {v}.", "The {p} office fire drill got moved; it's on {v} now."],
    "correction": ["The {p} office drill is on {v}; {old} was a typo."],
    "as_of": ["Per the safety plan of {date_iso}, the {p} office drill is on {v}."],
    "q_current": ["When is the next fire drill at the {p} office?"],
    "q_as_of": ["When was the fire drill at the {p} office scheduled for, as planned on {date}?"],
    "q_history": ["When was the fire drill at the {p} office scheduled for before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # Audit-log rows (field/value), device reports nested under an asset, contract and calendar records.
    "person": ("hris.audit_row", {"employee": "{s}", "field": "{key}", "value": "{v}"}),
    "deployment": ("mdm.device_report", {"asset": {"type": "{svc}", "location": "{env}"}, "report": {"{key}": "{v}"}}),
    "service": ("assets.fleet", {"fleet": "{svc}", "contract": {"{key}": "{v}"}}),
    "team": ("calendar.recurring", {"series": "{team} standup", "{key}": "{v}"}),
    "project": ("facilities.site", {"site": "{p} office", "{key}": "{v}"}),
}
TOOL_STAMP = ("polled", "%Y%m%dT%H%MZ")
JSON_KEYS = {"dentist": "dental_practitioner", "gp": "family_doctor", "commute": "commute_mode", "parking_bay": "parking_bay",
             "emergency_contact": "emergency_contact", "status": "device_state", "firmware": "fw_version",
             "firmware_channel": "update_channel", "repairer": "maintenance_vendor", "standup": "starts",
             "fire_warden": "fire_warden", "caterer": "canteen_caterer", "fire_drill": "next_fire_drill"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "{name} is selling two tickets for a gig in {city} on {weekday}.",
        "The microwave on floor {n} smells of burnt popcorn again.",
        "{name} brought {food} for everyone, it's on the second shelf.",
        "Does anyone have a spare umbrella? {name} is stuck in reception.",
        "{name} wants volunteers for {topic} before {weekday}.",
        "Photos from {topic} are up, thanks to {name}.",
        "{name} says the {food} place in {city} is worth the queue.",
        "The blinds in meeting room {n} won't go up, a ticket is open.",
        "{name} is back from two weeks in {city} with a suntan.",
        "Whoever left a mug in room {n}: it's growing something.",
        "{name} won the office sweepstake with {n} points.",
        "Final reminder from {name}: {topic} is at {time} on {weekday}.",
    ],
    "tool": [
        '{{"weather_feed": {{"station": "{city}", "temp": {n}, "cond": "{weather}"}}}}',
        '{{"room_sensor": {{"room": "M{n}", "co2_ppm": {n2}0, "occupied": true}}}}',
        '{{"print_job": {{"id": "PJ-{n}{n2}", "owner": "{name}", "pages": {n}}}}}',
        '{{"newsletter": {{"issue": {n}, "headline": "{topic}", "opens": {n2}}}}}',
    ],
    "tool_names": ["weather.feed", "sensors.room", "print.queue", "comms.newsletter"],
}

REPORTERS = (("Ngozi", "user:ngozi.facilities"), ("Anders", "user:anders.it"), ("Pilar", "user:pilar.office"))
LOW_TRUST = (("document", "doc:site-handbook-2022.docx"), ("document", "doc:asset-register-old.xlsx"),
             ("peer", "agent:helpdesk-summariser"))
