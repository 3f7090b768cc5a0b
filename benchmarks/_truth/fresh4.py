"""The sixth template set, ``fresh4``: a blind world written by someone who read only the
benchmark (``truth.py`` and ``_truth/``), never the engine, its lexicons, its tests, its docs
or its misses, so no extraction rule was tuned on it and no phrasing was chosen for its score.

The world's machinery is the same (five entity kinds, two look-alike deployments per "service",
status observations that go stale, repeats, late arrivals, old restatements, distractors); what
is in it is new. People have a bank (where the salary goes), a gym, a car, a line manager and a
mentor (a look-alike pair: two people one reports to in different senses). The "deployments"
are lab instruments in two look-alike rooms (the centrifuge in the upstairs lab and the one in
the downstairs lab) with a status (the observation slot), a custodian and an open ticket; the
"service" of an instrument type is the procedure revision it is run under ("SOP-214 rev C");
teams are lab groups with a request channel ("#bench-queue"); the "projects" are funded studies
with a budget code, a budget holder and a report due date.

Changes come in the shapes of chat, email, tickets, logs and meeting notes: first person ("New
car day!"), third person, passive ("was signed up to", "was marked"), corrections, "as of DATE"
and "since WEEKDAY", "from today", quoted dialogue, e-mail subjects, markdown table rows,
"Key: value" blocks over two lines, ticket headers ("[LAB-4206] New: …"), key=value log lines,
meeting actions, and tool results whose values sit in a list of changes or under a composite
instrument name. Dates are written ``04/03/2026`` and also ``2026-03-04`` and ``Wednesday
4 March 2026``. Distractors name the subject and another value without setting the slot (a
mortgage refused by another bank, a trial class, a test drive, covering for a colleague, someone
trained on but not looking after an instrument, a co-investigator who does not hold the budget).
Its random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh4-2026-12-03-blind"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("bank", "gym", "car", "line_manager", "mentor"),
    "deployment": ("status", "custodian", "ticket"),
    "service": ("procedure",),
    "team": ("request_channel",),
    "project": ("budget_code", "budget_holder", "report_due"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("custodian", "budget_holder")
"""Attributes whose values are the world's people."""
SELF_EXCLUDED = ("line_manager", "mentor")
"""Person-valued attributes of a person that never name the person themself."""
SIBLINGS = {"line_manager": "mentor", "mentor": "line_manager"}
"""Two slots of one person that look alike (both a senior person one meets) but are not the same slot."""
VERSIONED = ("procedure",)
"""Attributes whose values are revisions in ``VOCAB.version_style`` (``revision``)."""
DATED = ("report_due",)
"""Attributes whose values are future dates."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``);
    ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_long": date.strftime("%A %-d %B %Y"), "weekday": date.strftime("%A")}


def revisions(rng: Any, count: int) -> list[str]:
    """Procedure revisions in release order: "SOP-214 rev C", "SOP-214 rev D", "SOP-214 rev F"."""
    number, letter = rng.randint(100, 480), rng.randint(0, 4)
    out = []
    for _ in range(count):
        out.append(f"SOP-{number} rev {chr(ord('A') + letter)}")
        letter += 1 if rng.random() < 0.75 else 2
    return out


VOCAB = Vocabulary(
    name_pairs=(("Soren", "Sorin"), ("Selma", "Zelma"), ("Viggo", "Vigo"), ("Wanda", "Vanda"), ("Lorenz", "Lorenzo"),
                ("Priska", "Prisca"), ("Malik", "Malika"), ("Yusuf", "Yosef"), ("Carmen", "Carmel"), ("Gideon", "Gedeon"),
                ("Farah", "Farrah"), ("Ruben", "Rubens"), ("Aino", "Aina"), ("Desmond", "Desmon"), ("Tilde", "Tilda")),
    surnames=("Achebe", "Brannigan", "Czerny", "Dalgaard", "Esposito", "Fonseca", "Grigoriou", "Hakimi"),
    cities=("Linz", "Tartu", "Pecs", "Szeged", "Brasov", "Maribor", "Ostrava", "Gyor", "Trieste", "Lecce", "Girona",
            "Braga", "Coimbra", "Nijmegen", "Leuven", "Aalborg"),
    employers=(),
    languages=(),
    roles=(),
    services=("centrifuge", "fume hood", "autoclave", "plate reader", "spectrophotometer", "ultra-low freezer", "incubator",
              "thermal cycler", "confocal microscope", "analytical balance", "anaerobic chamber", "sequencer", "cryostat",
              "orbital shaker", "biosafety cabinet"),
    environments=("upstairs lab", "downstairs lab"),
    service_statuses=("available", "awaiting calibration", "quarantined", "out for repair", "on hold"),
    regions=(),
    owner_teams=(),
    teams=("Kinetics", "Proteomics", "Imaging", "Genomics", "Cryo-EM", "Assay Development", "Histology", "Biobank",
           "Flow Cytometry", "Metabolomics"),
    projects=("ASTRAL", "CORDIAL", "DELPHI", "FIRTH", "GALLEON", "HALCYON", "INGOT", "JUBILEE", "KINDLE", "LANTERN",
              "MOSAIC", "NECTAR", "OPAL", "PARAGON", "QUILL", "RIVULET", "SOLACE", "TRELLIS", "UPLIFT", "VESPER"),
    project_statuses=(),
    version_style="revision",
    date_format="%d/%m/%Y",
    foods=("burek", "khachapuri", "halloumi wraps", "onigiri", "pastel de nata", "dal"),
    topics=("the journal club", "the lab clean-up day", "the safety induction", "the poster session", "the pub quiz",
            "the sample amnesty", "the retirement card", "the bake sale"),
    pools=(
        ("bank", ("Kingsmere Bank", "Thornbury Building Society", "Alder Mutual", "Pennant Savings", "Bluestone Credit Union",
                  "Larkspur Bank", "Crestfield Bank", "Moorgate Direct", "Halyard Bank", "Evergreen Co-operative Bank")),
        ("gym", ("Ironhouse Gym", "The Boulder Shed", "Riverside Leisure Centre", "Pulse Fitness", "Forge Strength Club",
                 "Summit Climbing Wall", "Northside Pool", "Core Collective", "Spin Republic", "Kettlebell Yard")),
        ("car", ("Skoda Octavia", "Toyota Yaris", "VW Golf", "Renault Zoe", "Kia Niro", "Ford Focus", "Volvo XC40",
                 "Mini Cooper", "Fiat Panda", "Honda Jazz", "Opel Corsa", "Hyundai Ioniq")),
        # Forty ticket numbers, so that two instruments rarely share one.
        ("ticket", tuple(f"LAB-{4021 + 37 * i}" for i in range(40))),
        ("request_channel", ("#ask-the-bench", "#samples-intake", "#lab-ops", "#core-requests", "#wetlab-help",
                             "#bench-queue", "#lab-triage", "#group-desk", "#protocol-questions", "#kit-requests")),
        ("budget_code", tuple(f"{prefix}-{n}" for prefix in ("CC", "RG", "WBS") for n in (1187, 2093, 3350, 4417, 5602, 6648, 7731))),
    ),
)


T: dict[str, dict[str, list[str]]] = {}
T["bank"] = {
    "state": ["{s} banks with {v}.", "{s}'s salary goes into an account at {v}.", "Payroll note: {s} is paid into {v}.",
              "{s} keeps their current account with {v}."],
    "change": ["{s} closed the {old} account; wages go to {v} from now on.",
               "Subject: bank details update\n{s} has asked for pay to go to {v} instead of {old}.",
               "Payroll changes this month:\n| employee | old bank | new bank |\n| {s} | {old} | {v} |",
               "{s}'s salary account was moved from {old} to {v} in time for this month's run."],
    "first_state": ["My salary goes into my {v} account.", "I bank with {v}, have done since uni."],
    "first_change": ["Finally ditched {old}. I'm with {v} now, the app is so much better.",
                     "Please pay me into my new {v} account from now on, the {old} one is closed."],
    "correction": ["Payroll had the wrong bank for {s}: {v}, not {old}. Fixed now."],
    "as_of": ["Effective {date}, {s}'s pay is deposited with {v}.", "{s} has banked with {v} since {weekday}."],
    "distractor": ["{s} applied for a mortgage with {x} but was turned down.", "{s}'s partner has an account at {x}.",
                   "{s} said {x} has the best savings rate right now.", "{s} got yet another marketing letter from {x}."],
    "q_current": ["Which bank is {s}'s salary paid into now?"],
    "q_as_of": ["Which bank was {s}'s salary paid into on {date}?"],
    "q_history": ["Which bank was {s}'s salary paid into before {v}?"],
}
T["gym"] = {
    "state": ["{s} trains at {v}.", "{s} has a membership at {v}.", "{s} is usually at {v} after work."],
    "change": ["{s} let the {old} membership lapse and joined {v}.", "{s} moved gyms: {v} these days, not {old}.",
               "{s} was signed up to {v} through the staff wellness scheme, replacing {old}."],
    "first_state": ["I work out at {v} most evenings.", "I've got a membership at {v}."],
    "first_change": ["Cancelled {old}. Joined {v} today, way less crowded.",
                     "“You still at {old}?” “Nah, I go to {v} now.”"],
    "correction": ["Not {old}: {s}'s gym is {v}. The wellness list was out of date."],
    "as_of": ["As of {date}, {s}'s gym membership is with {v}.", "{s} joined {v} on {date_long}."],
    "distractor": ["{s} did a free trial class at {x}.", "{s} met a friend at {x} for one session.",
                   "{s} thinks {x} is far too expensive.", "{s}'s team did a charity spin-a-thon at {x}."],
    "q_current": ["Which gym does {s} go to now?"],
    "q_as_of": ["Which gym did {s} go to on {date}?"],
    "q_history": ["Which gym did {s} go to before {v}?"],
}
T["car"] = {
    "state": ["{s} drives {a_v}.", "{s}'s car is {a_v}.", "The {v} by the bike racks belongs to {s}."],
    "change": ["{s} sold the {old}; they drive {a_v} now.", "{s} has replaced the {old} with {a_v}.",
               "Car park permit for {s} reissued: vehicle changed from {old} to {v}."],
    "first_state": ["I drive {a_v}.", "Mine's the {v}, parked by the bins."],
    "first_change": ["New car day! Said goodbye to the {old}, hello {v}.",
                     "Update the permit list please: I've got {a_v} now instead of the {old}."],
    "correction": ["The permit list is wrong for {s}: it's {a_v}, not the {old}."],
    "as_of": ["Permit register, {date}: {s} - {v}.", "{s} has been driving {a_v} since {weekday}."],
    "distractor": ["{s} test-drove the {x} at the weekend.", "{s}'s neighbour just bought the {x}.",
                   "{s} got a lift home in a colleague's {x}.", "{s} is saving up for the new {x}."],
    "q_current": ["What car does {s} drive now?"],
    "q_as_of": ["What car did {s} drive on {date}?"],
    "q_history": ["What car did {s} drive before the {v}?"],
}
T["line_manager"] = {
    "state": ["{s} sits under {v} on the org chart.", "{v} is {s}'s line manager.", "{s}'s one-to-ones are with {v}, their manager.",
              "Org chart: {s}, reports to {v}."],
    "change": ["{s} now reports to {v} after the reorg.", "{s}'s reporting line was moved from {old} to {v}.",
               "From today {s} reports to {v} rather than {old}.",
               "Meeting notes: agreed that {s} moves under {v}. Action: {old} to hand over the one-to-ones."],
    "first_state": ["My line manager is {v}.", "{v} does my appraisals."],
    "first_change": ["Heads up: I report to {v} now, not {old}.", "Had my first one-to-one with {v} today, my new manager."],
    "correction": ["Correction to the org chart: {s} reports to {v}, not {old}."],
    "as_of": ["With effect from {date}, {s}'s line manager is {v}.", "{s} has reported to {v} since {weekday}."],
    "distractor": ["{s} covered for {x} while {x} was on leave.", "{s} sat in on {x}'s group meeting.",
                   "{s} asked {x} for feedback on the poster.", "{x} signed off {s}'s expenses while the manager was away."],
    "q_current": ["Who is {s}'s line manager now?"],
    "q_as_of": ["Who was {s}'s line manager on {date}?"],
    "q_history": ["Who was {s}'s line manager before {v}?"],
}
T["mentor"] = {
    "state": ["{v} is the assigned mentor for {s}.", "{s} is mentored by {v}.", "{s} meets {v} once a month for mentoring."],
    "change": ["{s} has been paired with {v} for mentoring; {old} stepped back.",
               "{s}'s mentoring moved from {old} to {v} in the new programme round.", "{v} took over as {s}'s mentor from {old}."],
    "first_state": ["{v} has been mentoring me.", "I have mentoring chats with {v} once a month."],
    "first_change": ["Got matched with {v} as my new mentor! Thanks {old} for the last year.",
                     "My mentor is {v} now; {old} ran out of time for it."],
    "correction": ["Mentoring list fix: {s} is paired with {v}, not {old}."],
    "as_of": ["Mentoring round starting {date}: {s} paired with {v}.", "{s} has been mentored by {v} since {date_long}."],
    "distractor": ["{s} went to {x}'s talk on career paths.", "{s} had coffee with {x} to talk about conferences.",
                   "{x} reviewed a draft of {s}'s paper."],
    "q_current": ["Who is {s}'s mentor now?"],
    "q_as_of": ["Who was {s}'s mentor on {date}?"],
    "q_history": ["Who was {s}'s mentor before {v}?"],
}
T["status"] = {
    "state": ["The {svc} in the {env} is {v}.", "Instrument board: {svc}, {env}: {v}.",
              "Checked the {svc} in the {env} on my round: {v}.", "Instrument: {svc} ({env})\nState: {v}"],
    "change": ["The {svc} in the {env} has gone from {old} to {v}.", "[LAB ticket] {svc} / {env}: status changed {old} => {v}",
               "The {svc} in the {env} was marked {v} by the lab manager.",
               "Heads-up: the {svc} in the {env} is {v} as of this morning (was {old})."],
    "correction": ["Sorry, misread the board: the {svc} in the {env} is {v}, not {old}."],
    "as_of": ['{date_iso} 09:00 INFO instrument="{svc}" room="{env}" state="{v}"', "Since {weekday} the {svc} in the {env} has been {v}."],
    "distractor": ["The {svc} in the other building is {x}, not ours in the {env}.",
                   "If the {svc} in the {env} ever shows {x}, do not use it.", "The spare {svc} in storage is {x}."],
    "q_current": ["What is the status of the {svc} in the {env} now?"],
    "q_as_of": ["What was the status of the {svc} in the {env} on {date}?"],
    "q_history": ["What was the status of the {svc} in the {env} before it was {v}?"],
}
T["custodian"] = {
    "state": ["{v} is the custodian of the {svc} in the {env}.", "The {svc} in the {env} is looked after by {v}.",
              "Questions about the {svc} in the {env} go to {v}, who looks after it.", "Asset: {svc} ({env})\nCustodian: {v}"],
    "change": ["{v} has taken over looking after the {svc} in the {env} from {old}.",
               "Custodian for the {svc} in the {env} reassigned: {old} -> {v}.",
               "Meeting notes. Action: {v} to be custodian of the {svc} in the {env} from now on ({old} stepping down)."],
    "correction": ["The asset list had {old} against the {svc} in the {env}; the custodian is {v}."],
    "as_of": ["As of {date} the {svc} in the {env} has {v} as custodian.",
              "{v} has been the named custodian of the {svc} in the {env} since {weekday}."],
    "distractor": ["{x} used the {svc} in the {env} all afternoon.", "{x} booked the {svc} in the {env} for Thursday.",
                   "{x} is trained on the {svc} in the {env} but doesn't look after it."],
    "q_current": ["Who is the custodian of the {svc} in the {env} now?"],
    "q_as_of": ["Who was the custodian of the {svc} in the {env} on {date}?"],
    "q_history": ["Who was the custodian of the {svc} in the {env} before {v}?"],
}
T["ticket"] = {
    "state": ["The open ticket for the {svc} in the {env} is {v}.", "{v} tracks the current issue with the {svc} in the {env}.",
              "Anything about the {svc} in the {env}, add it to {v}."],
    "change": ["{old} closed; the new issue on the {svc} in the {env} is filed as {v}.",
               "{v} was opened for the {svc} in the {env} and {old} was resolved.",
               "[{v}] New: {svc} ({env}), follows on from {old}"],
    "correction": ["Wrong ticket number, sorry: the {svc} in the {env} is tracked in {v}, not {old}."],
    "as_of": ["Open ticket for the {svc} in the {env} as of {date}: {v}."],
    "distractor": ["{x} is about the {svc} in the basement, not the one in the {env}.",
                   "{x} is the procurement request for a second {svc}.", "{x} was a duplicate of an older {svc} ticket and got closed."],
    "q_current": ["Which ticket is open for the {svc} in the {env} now?"],
    "q_as_of": ["Which ticket was open for the {svc} in the {env} on {date}?"],
    "q_history": ["Which ticket was open for the {svc} in the {env} before {v}?"],
}
T["procedure"] = {
    "state": ["The {svc}s are run under {v}.", "Current procedure for the {svc}s: {v}.", "Follow {v} when using any {svc}."],
    "change": ["{v} supersedes {old} for all {svc}s.", "The {svc} procedure was revised: {old} is withdrawn, use {v}.",
               "QA approved {v} for the {svc}s today, retiring {old}."],
    "correction": ["The wiki links the wrong procedure for the {svc}s: it's {v}, not {old}."],
    "as_of": ["Effective {date}: {svc} work follows {v}."],
    "q_current": ["Which procedure revision applies to the {svc}s now?"],
    "q_as_of": ["Which procedure revision applied to the {svc}s on {date}?"],
    "q_history": ["Which procedure revision applied to the {svc}s before {v}?"],
}
T["request_channel"] = {
    "state": ["The {team} group takes requests in {v}.", "To reach {team}, post in {v}.", "{team} group, intake channel: {v}"],
    "change": ["{team} have moved their requests from {old} to {v}.", "Please stop posting in {old}: {team} requests go to {v} now.",
               "{old} has been archived; the {team} group is in {v}."],
    "correction": ["Typo in the onboarding email: the {team} group's request channel is {v}, not {old}."],
    "as_of": ["From {date} the {team} group answers requests in {v}.", "{team} have been taking requests in {v} since {weekday}."],
    "distractor": ["{team} posted their seminar slides in {x}.", "Someone from {team} asked a question in {x}.",
                   "{x} is where the {team} group shares paper recommendations."],
    "q_current": ["Which channel does the {team} group take requests in now?"],
    "q_as_of": ["Which channel did the {team} group take requests in on {date}?"],
    "q_history": ["Which channel did the {team} group take requests in before {v}?"],
}
T["budget_code"] = {
    "state": ["Charge {p} study costs to {v}.", "The {p} study's cost centre is {v}.", "Budget code for {p}: {v}"],
    "change": ["Finance moved the {p} study from {old} to cost centre {v}.",
               "{p} purchases go on {v} now; {old} is closed to new orders.",
               "Email from finance: please use {v} (not {old}) for anything on the {p} study."],
    "correction": ["The {p} study code in the spreadsheet was wrong: it's {v}, not {old}."],
    "as_of": ["From {date}, the {p} study is charged to {v}.", "Per finance, as of {date_iso}: {p} study, code {v}."],
    "distractor": ["The {p} study's conference travel came out of {x} by mistake.", "{x} is the departmental code, don't use it for {p}.",
                   "Someone charged pipette tips for {p} to {x}; finance reversed it."],
    "q_current": ["Which budget code do {p} study costs go to now?"],
    "q_as_of": ["Which budget code did {p} study costs go to on {date}?"],
    "q_history": ["Which budget code did {p} study costs go to before {v}?"],
}
T["budget_holder"] = {
    "state": ["{v} holds the budget for the {p} study.", "Spend on {p} is approved by {v}, the budget holder.",
              "{p} study, budget holder: {v}"],
    "change": ["{v} is now budget holder for {p}; {old} handed it over.",
               "Budget authority for the {p} study passed from {old} to {v}.",
               "“Who signs off {p} orders these days?” “{v}. {old} isn't budget holder any more.”"],
    "correction": ["Correction: {p} purchase approvals go to {v}; {old} was listed by mistake."],
    "as_of": ["As of {date}, {v} is budget holder for the {p} study."],
    "distractor": ["{x} presented the {p} study results at the seminar.", "{x} asked whether the {p} study can pay for a new laptop.",
                   "{x} is a co-investigator on {p} but doesn't hold the budget."],
    "q_current": ["Who is the budget holder for the {p} study now?"],
    "q_as_of": ["Who was the budget holder for the {p} study on {date}?"],
    "q_history": ["Who was the budget holder for the {p} study before {v}?"],
}
T["report_due"] = {
    "state": ["The {p} study's report is due on {v}.", "{p}: report submission on {v}.", "We have to submit the {p} report by {v}."],
    "change": ["The {p} report deadline slipped from {old} to {v}.", "Funder agreed an extension for {p}: due {v} instead of {old}.",
               "{p} report now due {v}."],
    "correction": ["My calendar was wrong: the {p} report is due {v}, not {old}."],
    "as_of": ["Minutes of {date}: {p} report due {v}."],
    "q_current": ["When is the {p} study report due now?"],
    "q_as_of": ["When was the {p} study report due, as planned on {date}?"],
    "q_history": ["When was the {p} study report due before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A profile diff with its changes in a list, an instrument named with its room in one string,
    # a controlled-document record, a chat-ops lookup and a grants-system award.
    "person": ("people.profile_diff", {"person": "{s}", "changes": [{"attr": "{key}", "now": "{v}"}]}),
    "deployment": ("lims.instrument", {"instrument": "{svc} ({env})", "props": {"{key}": "{v}"}}),
    "service": ("qms.document", {"doc_type": "SOP", "applies_to": "{svc}", "{key}": "{v}"}),
    "team": ("chatops.team_info", {"group": "{team}", "intake": {"{key}": "{v}"}}),
    "project": ("grants.award", {"award": {"study": "{p}"}, "{key}": "{v}"}),
}
TOOL_STAMP = ("last_sync", "%d/%m/%Y %H:%M")
JSON_KEYS = {"bank": "salary_bank", "gym": "gym_membership", "car": "vehicle", "line_manager": "reports_to",
             "mentor": "mentor", "status": "instrument_state", "custodian": "custodian", "ticket": "open_ticket",
             "procedure": "current_revision", "request_channel": "request_channel", "budget_code": "cost_centre",
             "budget_holder": "budget_holder", "report_due": "report_due"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "{name} left a tray of {food} in the tea room, help yourselves.",
        "Who keeps taking the good pipettes from bench {n}?",
        "{name} is running {topic} on {weekday} at {time}.",
        "The lift to floor {n} is out again, stairs it is.",
        "{name} is back from a conference in {city}, slides to follow.",
        "{name} says the list for {topic} closes {weekday}.",
        "The tea room fridge gets emptied on {weekday}, label your lunch.",
        "{name} recommends the {food} stall at the {city} market.",
        "Anyone got a spare lab coat in size {n}? Asking for {name}.",
        "{name} just passed the PhD viva, drinks at {time}!",
        "The printer on floor {n} only prints in pink today.",
        "{name} found a box of old samples from {topic}, nobody claims them.",
    ],
    "tool": [
        '{{"weather_now": {{"city": "{city}", "celsius": {n}, "sky": "{weather}"}}}}',
        '{{"door_log": {{"door": "D{n}", "badge_swipes": {n2}, "day": "{weekday}"}}}}',
        '{{"order": {{"ref": "ORD-{n}{n2}", "requested_by": "{name}", "lines": {n}}}}}',
        '{{"seminar": {{"title": "{topic}", "room": "S{n}", "starts": "{time}"}}}}',
    ],
    "tool_names": ["weather.now", "security.door_log", "purchasing.order", "events.seminar"],
}

REPORTERS = (("Ottilie", "user:ottilie.labmanager"), ("Kwabena", "user:kwabena.finance"), ("Henrike", "user:henrike.people"))
LOW_TRUST = (("document", "doc:lab-wiki-mirror"), ("document", "doc:induction-pack-2023.pdf"), ("peer", "agent:minutes-bot"))
