"""The fifteenth template set, ``fresh13``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is a container terminal at a mid-sized port on Puget Sound (two piers, a few weekly
transpacific calls, wheeled and grounded yard), as its vessel operations desk, a yard
superintendent or labor relations sees it. People are steady terminal workers (operators, clerks,
lashers) with the area of the terminal they work out of (the reefer yard, the rail ramp, the gate
complex), the container handling unit they are assigned ("SC-214", "RTG-11"), the date their
fit-for-duty physical is due, and two foremen that are easily confused (their day-shift foreman
and their night-shift foreman: the look-alike pair, drawn from two pools where a few names nearly
match, "Ray Villanueva" beside "Ray Villareal"). The "deployments" are terminal equipment on the
port's two look-alike piers (the RTG crane on Pier 46 and the one on Pier 64) with a status (the
observation slot), the controller firmware it runs and the mechanic assigned to it; the "service"
of an equipment type is the vendor holding the service agreement for it on both piers; teams are
departments (Vessel Operations, Gate Operations) with the radio channel they work on; the
"projects" are vessel calls with look-alike names by nature (Cape Halcyon 031E beside Cape
Halcyon 013E, Pacific Tern beside Pacific Fern) with an ETA, a planned berth and a supercargo, the
clerk in charge of the ship's paperwork, who is one of the world's own workers.

Statements come as workers' first-person chat ("won my bid", "finally ditched …", "physical moved
again!!"), supervisors' third-person notes, steady boards and foreman matrices as pipe rows,
lowercase CSV with a header, upper-case terminal operating system audit lines ("CHE ASSIGN CHG …:
A -> B", "BERTH CHG", "ETA REVISED"), radio calls ("Tower to all gangs: …"), "[Pier 46] … ::"
chat-bridge lines, an equipment log with an EDIFACT-style timestamp, long-range schedules and
berth windows, e-mails with From/Subject headers and a sign-off (Labor Relations, Equipment
Control, Occupational Health, M&R Dispatch, Controls Engineering, Purchasing, Terminal Comms,
Vessel Planning, Berth Planning), corrections ("Correction: … not …", "Scratch my last",
"Disregard that last area list", "Wrong unit number on the sheet") and "as of"/"effective"/
export-dated forms. Dates are written ``Mar 04, 2027`` and also ``2027-03-04`` (exports and
audits), ``03/04/27`` (dispatch boards and lineups), ``202703040915`` (the equipment log),
``Thursday, March 4`` (notices, no year) and "since Thursday". Tool results are an HR profile, an
M&R equipment record with a name/value attribute list, a service agreement lookup, a radio plan
keyed by department and a terminal operating system's vessel visit, stamped ``Mar 04 2027 09:15
UTC``. Distractors name the subject and another value without setting the slot: a one-off (a
night filling in at another area, an hour on another unit, a foreman covering a vacation, a
callout mechanic, a repeater outage, a ship shifting for the last bay, a clerk covering a shift),
a wish or a bid, a losing quote, another terminal's value (the barge dock, the terminal across the
bay), a cousin's, questions and negations. Its random stream is seeded apart from the other sets
(``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh13-2026-12-08-blind-container-terminal"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("work_area", "che_unit", "physical_due", "day_foreman", "night_foreman"),
    "deployment": ("status", "controller_fw", "mechanic"),
    "service": ("service_vendor",),
    "team": ("radio_channel",),
    "project": ("eta", "berth", "supercargo"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("supercargo",)
"""A vessel call's supercargo is one of the world's terminal workers; foremen and mechanics come from pools of their own."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"day_foreman": "night_foreman", "night_foreman": "day_foreman"}
"""A worker's day and night foremen look alike (and a few of their names nearly match) but are not the same slot."""
VERSIONED = ("controller_fw",)
"""The controller firmware a piece of terminal equipment runs, in ``VOCAB.version_style`` (``firmware``: "FW3.07")."""
DATED = ("physical_due", "eta")
"""Attributes whose values are future dates: a worker's physical due date, a vessel call's ETA."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``Mar 04, 2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_board": date.strftime("%m/%d/%y"),
            "date_edi": date.strftime("%Y%m%d%H%M"), "date_notice": date.strftime("%A, %B %-d"),
            "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Esteban", "Estevan"), ("Jolene", "Joleen"), ("Tyrone", "Tyron"), ("Leilani", "Leilana"),
                ("Terrell", "Terell"), ("Rosalind", "Rosalyn"), ("Dominic", "Dominick"), ("Cheyenne", "Shyanne"),
                ("Vaughn", "Von"), ("Malia", "Maliah"), ("Anton", "Antoine"), ("Graciela", "Graciella"),
                ("Kekoa", "Keoka"), ("Bjorn", "Bjorne"), ("Latrice", "Latrisha")),
    surnames=("Halvorsen", "Tupou", "Delgado", "Okonkwo", "Yamamoto", "Petrakis", "Lindahl", "Castaneda"),
    cities=("Aberdeen", "Hoquiam", "Longview", "Kelso", "Olympia", "Bremerton", "Everett", "Bellingham", "Astoria",
            "Centralia", "Chehalis", "Port Angeles", "Anacortes", "Yakima", "Tumwater", "Puyallup"),
    employers=(),
    languages=(),
    roles=(),
    # Terminal equipment that both piers have.
    services=("No. 1 STS crane", "No. 2 STS crane", "RTG crane", "OCR gate portal", "reefer monitoring system",
              "radiation portal monitor", "inbound truck scale", "empty container handler", "laden top handler",
              "reach stacker", "shore power vault", "rail-mounted gantry", "gate kiosk array", "container X-ray scanner",
              "fuel island"),
    environments=("Pier 46", "Pier 64"),
    service_statuses=("working", "down", "red-tagged", "on PM", "waiting on parts", "running restricted"),
    regions=(),
    owner_teams=(),
    # Departments, said without an article ("Gate Operations are on …").
    teams=("Vessel Operations", "Yard Operations", "Gate Operations", "Rail Operations", "Reefer Department",
           "Lashing Gang", "Maintenance & Repair", "Marine Clerks", "Terminal Security", "Safety Office",
           "Vessel Planning", "Container Freight Station"),
    # Vessel calls; neighbours have look-alike names or voyage numbers by nature.
    projects=("Cape Halcyon 031E", "Cape Halcyon 013E", "Nordic Juniper 214W", "Nordic Juniper 241W",
              "Pacific Tern 508N", "Pacific Fern 508N", "Hyperion Bay 77E", "Hyperion Cay 77E",
              "Star Kestrel 160W", "Star Kestrel 106W", "Santa Lucia Express 42E", "Santa Luzia Express 42E",
              "Orient Harmony 390W", "Orient Harmony 309W", "Baltic Wren 25N", "Baltic Wren 52N",
              "Coral Sapphire 811E", "Coral Sapphire 118E", "Gulf Meridian 07W", "Gulf Meridien 07W"),
    project_statuses=(),
    version_style="firmware",
    date_format="%b %d, %Y",
    foods=("clam chowder", "teriyaki", "fish tacos", "pho", "breakfast burritos", "maple bars"),
    topics=("the lashing safety stand-down", "the hoot-owl shift vote", "the new VMT rollout", "the fire brigade drill",
            "the reefer plug audit", "the crane wind-speed procedure", "the holiday schedule", "the seal-check refresher"),
    pools=(
        # Work areas, said with "the" ("works out of the rail ramp").
        ("work_area", ("reefer yard", "rail ramp", "gate complex", "empty yard", "CFS warehouse", "vessel ops tower",
                       "lashing shed", "marine clerks' shack", "Block C stacks", "roadability lane")),
        ("che_unit", ("SC-207", "SC-214", "SC-229", "RTG-11", "RTG-16", "TH-04", "TH-09", "YT-118", "YT-131", "RS-02")),
        # Day and night foremen come from two pools; a few names nearly match across them.
        ("day_foreman", ("Ray Villanueva", "Gus Papadakis", "Donna Kealoha", "Lou Brannan", "Trish Okada",
                         "Mike Haugen", "Carla Reyes", "Hector Ibarra", "Sheila Duong", "Bo Lindqvist")),
        ("night_foreman", ("Ray Villareal", "Gus Papadopoulos", "Dana Kealoha", "Marv Tollefson", "Keisha Grant",
                           "Jimmy Nakamura", "Rocco Santangelo", "Bev Ostrander", "Arturo Mendez", "Wes Kaminski")),
        ("mechanic", ("Dale Pruitt", "Noe Sandoval", "Kristin Aalto", "Jerome Batiste", "Vince Ulloa", "Tuan Pham",
                      "Molly Redding", "Sal Guerrero", "Ike Fontenot", "Hana Sorensen")),
        ("service_vendor", ("Cascade Crane Services", "Puget Hydraulics", "Northwest Port Electric", "Salish Industrial",
                            "Columbia Lift & Rigging", "Olympic Controls", "Tideline Mechanical", "Evergreen Scale Co.",
                            "Rainier Spreader Works", "Pacific Rim Equipment Repair")),
        ("radio_channel", ("Channel 3", "Channel 5", "Channel 7", "Channel 9", "Channel 11", "Channel 12", "Channel 14",
                           "Channel 18", "Channel 21", "Channel 24")),
        ("berth", ("Berth 1E", "Berth 1W", "Berth 2E", "Berth 2W", "Berth 3E", "Berth 3W", "Berth 4", "Berth 5",
                   "Berth 6", "Berth 7")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["work_area"] = {
    "state": ["{s} works out of the {v}.", "{s} is a steady at the {v}.", "STEADY BOARD | {s} | {v}",
              "name,home area\n{s},{v}", "Need {s}? Try the {v}, that's where they clock in."],
    "change": ["{s} moved from the {old} over to the {v}.", "AREA XFER {s}: {old} -> {v}",
               "{s} bid out of the {old} and landed at the {v}.",
               "From: Labor Relations\nTo: Yard Supers\nSubject: Steady reassignment - {s}\n\n{s} is reassigned from the "
               "{old} to the {v}. Please fix the steady board and the time clock group.\n\nThanks,\nLabor Relations"],
    "first_state": ["I'm at the {v}, steady.", "i work out of the {v} if anyone needs me",
                    "Home for me is the {v}, been there a few years now."],
    "first_change": ["Won my bid, I'm at the {v} now instead of the {old}!", "moved to the {v}, done with the {old}",
                     "Heads up: I clock in at the {v} from now on, not the {old}."],
    "correction": ["Correction: {s} is at the {v}, not the {old}.",
                   "Steady board had {s} wrong - it's the {v}. The {old} was their old spot.",
                   "Disregard that last area list, {s} belongs to the {v}, not the {old}."],
    "as_of": ["As of {date}, {s} works out of the {v}.", "Steady board {date_board}: {s} @ {v}",
              "{s} has been clocking in at the {v} since {weekday}.", "Effective {date_notice}, {s} is assigned to the {v}."],
    "distractor": ["{s} is filling in at the {x} tonight, back to normal tomorrow.",
                   "{s} has a bid in for the {x}; results come out next month.", "Was that {s} over at the {x}? Saw their truck.",
                   "{s}'s cousin runs the {x} on nights.", "{s} isn't at the {x}, they just eat lunch there."],
    "q_current": ["Which part of the terminal does {s} work out of these days?"],
    "q_as_of": ["Which part of the terminal did {s} work out of on {date}?"],
    "q_history": ["Where in the terminal did {s} work before the {v}?"],
}
T["che_unit"] = {
    "state": ["{s} runs {v}.", "{s}'s assigned unit is {v}.", "CHE ASSIGN {v} => {s}", "unit | operator\n{v} | {s}",
              "If {v} is parked up, {s} is on break - it's their machine."],
    "change": ["{s} came off {old} and is running {v} now.", "CHE ASSIGN CHG {s}: {old} -> {v}",
               "{old} went to the shop for a rebuild, so {s} got {v}.",
               "From: Equipment Control\nSubject: Unit reassignment\n\n{s} is now assigned {v}. {old} goes back into the spare "
               "pool; hand the key fob in at the M&R window.\n\n-- Equipment Control"],
    "first_state": ["I run {v}.", "{v} is mine, don't mess with my seat settings", "My unit's {v}."],
    "first_change": ["Got moved off {old}, I'm on {v} now.", "finally ditched {old} - {v} is my machine now",
                     "New unit for me: {v} (bye {old})."],
    "correction": ["Correction: {s}'s unit is {v}, not {old}.",
                   "Wrong unit number on the sheet: {s} is on {v}. {old} belongs to somebody on the other shift."],
    "as_of": ["As of {date}, {s} is assigned {v}.", "CHE list {date_iso}: {v} - {s}", "{s} has been in the seat of {v} since {weekday}."],
    "distractor": ["{s} hopped on {x} for an hour while their unit got fuelled.", "{s} keeps asking for {x}, it has the new cab.",
                   "Who had {x} last night? {s} says it wasn't them.", "{s} doesn't run {x}; they only drove it to the shop."],
    "q_current": ["Which piece of equipment is {s} assigned now?"],
    "q_as_of": ["Which unit was {s} running on {date}?"],
    "q_history": ["Which unit did {s} run before {v}?"],
}
T["physical_due"] = {
    "state": ["{s}'s fit-for-duty physical is due {v}.", "Medical tracker | {s} | physical due {v}",
              "Occ health has {s} down for a physical by {v}."],
    "change": ["{s}'s physical due date moved from {old} to {v}.", "Occ health rebooked {s}: physical now {v} (was {old}).",
               "From: Occupational Health\nTo: {s}\nSubject: Your fit-for-duty physical\n\nThe clinic cancelled the {old} "
               "slot. You are now due by {v}; bring your hearing test results.\n\nOcc Health"],
    "first_state": ["My physical is due {v}.", "gotta get my physical done by {v} or I'm off the board"],
    "first_change": ["Clinic pushed my physical to {v}, it was {old}.", "physical moved again!! {v} now, not {old}"],
    "correction": ["Correction: {s}'s physical is due {v}, not {old}.",
                   "Typo in the medical tracker - {s} is due {v}; {old} is their hearing test."],
    "as_of": ["As of {date}, {s}'s physical is due by {v}.", "Medical tracker export {date_iso}: {s}, due {v}",
              "Occ health audit {date_board}: {s} - physical {v}"],
    "q_current": ["When is {s}'s fit-for-duty physical due?"],
    "q_as_of": ["When was {s}'s physical due, going by what we knew on {date}?"],
    "q_history": ["When was {s}'s physical due before it became {v}?"],
}
T["day_foreman"] = {
    "state": ["{s}'s day foreman is {v}.", "On day shift {s} answers to {v}.", "Foreman matrix | {s} | DAY | {v}",
              "{v} signs {s}'s day-shift time cards."],
    "change": ["{s} has a new day foreman: {v}, replacing {old}.", "DAY FM CHG {s}: {old} -> {v}",
               "{old} handed {s} over to {v} on the day side."],
    "first_state": ["On days my foreman is {v}.", "{v} is my day foreman, ask them"],
    "first_change": ["Day foreman is {v} now, {old} retired.", "got switched to {v}'s crew on days, no more {old}"],
    "correction": ["Correction: {s}'s day foreman is {v}, not {old}.", "Mixed up the names - {v} is {s}'s day foreman, {old} isn't."],
    "as_of": ["As of {date}, {s} works days under {v}.", "Foreman matrix {date_iso}: {s} / DAY / {v}",
              "{s} has been on {v}'s day crew since {weekday}."],
    "distractor": ["{x} is covering {s}'s day crew while the regular foreman's on vacation.",
                   "{s} asked to go under {x} on days; no word back.",
                   "Is {x} {s}'s day foreman now? They were handing out {s}'s work.", "{x} is the day foreman next door, not {s}'s."],
    "q_current": ["Who is {s}'s foreman on day shift?"],
    "q_as_of": ["Who was {s}'s day foreman on {date}?"],
    "q_history": ["Who was {s}'s day foreman before {v}?"],
}
T["night_foreman"] = {
    "state": ["{s}'s night foreman is {v}.", "When {s} works nights, {v} runs the crew.", "Foreman matrix | {s} | NIGHT | {v}",
              "Night side: {s} under {v}."],
    "change": ["{s} goes to {v} on nights now; {old} has a different crew.", "NIGHT FM CHG {s}: {old} -> {v}",
               "{v} picked up {s} on the night side from {old}."],
    "first_state": ["{v} is my night foreman.", "on nights I'm under {v}"],
    "first_change": ["Night foreman changed, it's {v} now, used to be {old}.", "{v} has me on nights now instead of {old}"],
    "correction": ["Correction: {s}'s night foreman is {v}, not {old}.", "Sorry, wrong foreman - nights, {s} is with {v}, never {old}."],
    "as_of": ["As of {date}, {s}'s night foreman is {v}.", "Foreman matrix {date_iso}: {s} / NIGHT / {v}",
              "{v} has had {s} on nights since {weekday}."],
    "distractor": ["{x} ran {s}'s crew on the hoot-owl shift once last week.", "{s} would rather have {x} on nights.",
                   "Is {x} running {s} on nights now?", "{x} is a night foreman over at the rail ramp, not {s}'s."],
    "q_current": ["Who is {s}'s night-shift foreman at the moment?"],
    "q_as_of": ["Who was {s}'s night foreman on {date}?"],
    "q_history": ["Who was {s}'s night foreman before {v}?"],
}
T["status"] = {
    "state": ["{env}'s {svc} is {v}.", "CHE STATUS {env} / {svc} / {v}", "M&R board: {env} {svc} - {v}",
              "Tower, {env}: {svc} is {v}, copy?", "[{env}] {svc} :: {v}"],
    "change": ["The {svc} at {env} went from {old} to {v}.", "Trouble ticket update - {env} {svc}: {old} >> {v}",
               "Tower to all gangs: {env} {svc} now {v}, no longer {old}.",
               "From: M&R Dispatch\nTo: Vessel Ops; Yard Ops\nSubject: {env} {svc}\n\nStatus change on the {svc} at {env}: "
               "{v} (previously {old}). Plan your moves around it.\n\nM&R Dispatch"],
    "correction": ["Correction: the {svc} at {env} is {v}, not {old} - I was looking at the other pier's board.",
                   "Scratch my last on the {env} {svc}: it's {v}, not {old}."],
    "as_of": ["As of {date}, M&R lists the {svc} at {env} as {v}.", "EQ LOG DTM {date_edi} {env} {svc} {v}",
              "The M&R board has listed the {env} {svc} as {v} since {weekday}.", "{date_board} {env} {svc}: {v}"],
    "distractor": ["If the {svc} at {env} ends up {x}, call M&R on the radio right away.",
                   "Is the {env} {svc} {x}? The operator said it was slow on the hoist.",
                   "The {svc} at the barge dock is {x}, not the one at {env}.",
                   "Somebody asked whether the {env} {svc} was {x}; nobody has looked yet."],
    "q_current": ["What's the current state of the {svc} at {env}?"],
    "q_as_of": ["What state was the {svc} at {env} in on {date}?"],
    "q_history": ["What state was the {svc} at {env} in before it was {v}?"],
}
T["controller_fw"] = {
    "state": ["The {svc} at {env} runs controller firmware {v}.", "{env} {svc} - controller {v}", "FW audit: {env}/{svc} = {v}",
              "site,asset,fw\n{env},{svc},{v}"],
    "change": ["The {svc} at {env} was flashed from {old} to {v}.", "Controls tech loaded {v} on the {env} {svc}; {old} is backed up.",
               "FW CHG {env} {svc}: {old} -> {v} OK",
               "From: Controls Engineering\nSubject: {env} {svc} firmware\n\nThe {svc} at {env} is now on {v}. If anything acts "
               "up we can roll back to {old}.\n\nControls"],
    "correction": ["Correction: firmware on the {env} {svc} is {v}, not {old}.",
                   "Fix to the FW audit: {env} {svc} is {v}; {old} was the spare controller."],
    "as_of": ["As of {date}, the {svc} at {env} runs {v}.", "FW audit {date_iso}: {env} {svc} {v}",
              "The {env} {svc} has run {v} since {weekday}."],
    "q_current": ["Which firmware is the {svc} at {env} on now?"],
    "q_as_of": ["Which firmware was the {svc} at {env} running on {date}?"],
    "q_history": ["Which firmware did the {svc} at {env} run before {v}?"],
}
T["mechanic"] = {
    "state": ["{v} is the assigned mechanic for the {svc} at {env}.", "{env} {svc} - M&R lead: {v}",
              "Breakdowns on the {env} {svc} go to {v}.", "asset owner list\n{env} {svc} : {v}"],
    "change": ["{v} took over the {svc} at {env} from {old}.", "M&R LEAD CHG {env} {svc}: {old} -> {v}",
               "{old} passed the {env} {svc} to {v} and moved over to the reefer side."],
    "correction": ["Correction: {v} is the mechanic on the {env} {svc}; {old} is not.",
                   "Wrong name on the asset list - the {svc} at {env} is {v}'s, not {old}'s."],
    "as_of": ["As of {date}, {v} is the mechanic for the {svc} at {env}.", "Asset owner list {date_iso}: {env} {svc} - {v}",
              "{v} has been the mechanic on the {env} {svc} since {weekday}."],
    "distractor": ["{x} is on the {env} {svc} this week while the regular mechanic is at training.",
                   "{x} did a one-off callout on the {svc} at {env} last night.",
                   "Can {x} take a look at the {env} {svc} before first shift?",
                   "{x} handles the {svc} at the barge dock, not at {env}."],
    "q_current": ["Which mechanic is assigned to the {svc} at {env}?"],
    "q_as_of": ["Who was the assigned mechanic for the {svc} at {env} on {date}?"],
    "q_history": ["Who was the mechanic on the {svc} at {env} before {v}?"],
}
T["service_vendor"] = {
    "state": ["{v} hold the service agreement for the {svc} on both piers.", "Service agreements\n{svc} >> {v}",
              "Asset class: {svc}\nService provider: {v}",
              "When the {svc} needs a factory tech we call {v}, doesn't matter which pier."],
    "change": ["The {svc} service agreement moved from {old} to {v}.", "{v} took the {svc} contract off {old} at renewal.",
               "From: Purchasing\nTo: M&R Dispatch\nSubject: {svc} service agreement\n\n{v} replace {old} as service "
               "provider for the {svc} at Pier 46 and Pier 64. New PO numbers are in the system.\n\nPurchasing"],
    "correction": ["Correction: the {svc} agreement is with {v}, not {old}.",
                   "Our vendor list was wrong: {svc} service is {v}. {old} were never on that contract."],
    "as_of": ["As of {date}, the {svc} agreement sits with {v}.", "Vendor list {date_iso}: {svc} / {v}",
              "{v} have had the {svc} agreement since {weekday}."],
    "distractor": ["{x} quoted for the {svc} agreement but came in too high.", "Should we get {x} to bid on the {svc} work next year?",
                   "The terminal across the bay uses {x} for their {svc}.", "{x} only installed the {svc}; they don't service it.",
                   "{x} sent a tech out for one emergency job on the {svc} when our usual vendor couldn't."],
    "q_current": ["Who holds the service agreement for the {svc}?"],
    "q_as_of": ["Who serviced the {svc} on {date}?"],
    "q_history": ["Who serviced the {svc} before {v}?"],
}
T["radio_channel"] = {
    "state": ["{team} work on {v}.", "Radio plan\n{team}: {v}", "Need {team}? Go to {v} on the handheld.", "{team} - primary {v}"],
    "change": ["{team} moved off {old} and onto {v}.", "RADIO PLAN CHG {team}: {old} -> {v}",
               "From: Terminal Comms\nSubject: {team} radio channel\n\nAll,\n\n{team} traffic is on {v} starting today. {old} "
               "had too much bleed-over from the crane frequencies.\n\nTerminal Comms"],
    "correction": ["Correction: {team} are on {v}, not {old}.", "Scratch that, {team} use {v}; {old} is the spare."],
    "as_of": ["As of {date}, {team} talk on {v}.", "Radio plan {date_iso}: {team} = {v}", "{team} have been on {v} since {weekday}."],
    "distractor": ["{team} are on {x} for tonight only while the repeater is down.", "{team} want {x} but Security has it.",
                   "Are {team} on {x} now? I heard their foreman there.", "{team} aren't on {x}; that's the gate."],
    "q_current": ["What radio channel do {team} use now?"],
    "q_as_of": ["Which radio channel did {team} use on {date}?"],
    "q_history": ["Which radio channel did {team} use before {v}?"],
}
T["eta"] = {
    "state": ["{p} is due in on {v}.", "Long-range schedule\n{p} | ETA {v}", "ETA {p}: {v}", "The line says {p} arrives {v}."],
    "change": ["{p} slipped from {old} to {v}.", "ETA REVISED {p}: {old} -> {v}",
               "Agent update: {p} now expected {v} (was {old}) after weather in the North Pacific.",
               "From: Vessel Planning\nTo: Terminal Ops\nSubject: Revised ETA - {p}\n\nThe line advises {p} now arrives {v}, "
               "not {old}. Gang orders to follow.\n\nVessel Planning"],
    "correction": ["Correction: {p} ETA is {v}, not {old}.", "Typo in the long-range - {p} comes in {v}; {old} was her ETD."],
    "as_of": ["As of {date}, {p} is expected on {v}.", "Long-range {date_iso}: {p} ETA {v}",
              "Berth schedule issued {date_notice}: {p} due {v}"],
    "q_current": ["When is {p} expected to arrive?"],
    "q_as_of": ["When was {p} expected to arrive, according to the schedule on {date}?"],
    "q_history": ["What was {p}'s ETA before {v}?"],
}
T["berth"] = {
    "state": ["{p} is planned for {v}.", "BERTH PLAN | {p} | {v}", "{p} works {v}.", "berth window\n{p} -> {v}"],
    "change": ["{p} has been moved from {old} to {v}.", "BERTH CHG {p}: {old} -> {v}",
               "Tower to all gangs: {p} goes to {v} now, not {old}.",
               "From: Berth Planning\nSubject: {p}\n\n{p} is re-berthed on {v}. {old} is needed for the dredging contractor."
               "\n\nBerth Planning"],
    "correction": ["Correction: {p} is on {v}, not {old}.", "Berth plan had a typo - {p} is {v}; {old} is the ship ahead of her."],
    "as_of": ["As of {date}, {p} is planned for {v}.", "Berth plan {date_iso}: {p} {v}",
              "{p} has been pencilled in for {v} since {weekday}."],
    "distractor": ["{p} may shift to {x} for a few hours if the crane can't reach the last bay.",
                   "The line asked whether {p} could go on {x} next rotation.", "Is that {p} on {x}? Looks like her hull.",
                   "{p} has never worked {x}, the draft's too deep."],
    "q_current": ["Which berth is {p} going to?"],
    "q_as_of": ["Which berth was {p} planned for on {date}?"],
    "q_history": ["Which berth was {p} planned for before {v}?"],
}
T["supercargo"] = {
    "state": ["{v} is supercargo on {p}.", "Supercargo {p}: {v}", "Questions about the {p} stow go to {v}.",
              "{p} - clerk in charge: {v}"],
    "change": ["{v} took over as supercargo on {p} from {old}.", "SUPERCARGO CHG {p}: {old} -> {v}",
               "{old} came off {p}; {v} is running the paperwork now."],
    "correction": ["Correction: {v} is supercargo on {p}, not {old}.",
                   "Wrong clerk on the lineup - {p} is {v}'s, {old} isn't on that ship."],
    "as_of": ["As of {date}, {v} is supercargo for {p}.", "Lineup {date_board}: {p} supercargo {v}",
              "{v} has been supercargo on {p} since {weekday}."],
    "distractor": ["{x} is covering {p} for one shift while the supercargo is at the dentist.",
                   "{x} would like to work {p} next rotation.", "Was {x} on {p} last night?",
                   "{x} is supercargo on the ship behind {p}, not on {p}."],
    "q_current": ["Who is the supercargo on {p}?"],
    "q_as_of": ["Who was supercargo on {p} on {date}?"],
    "q_history": ["Who was supercargo on {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # An HR profile, an M&R equipment record with a name/value attribute list, a service agreement
    # lookup, a radio plan keyed by department and a terminal operating system's vessel visit.
    "person": ("hr.steady_profile", {"badge_holder": "{s}", "dept": "Terminal Operations", "profile": {"{key}": "{v}"}}),
    "deployment": ("mr.equipment_record", {"equipment": "{svc}", "facility": "{env}",
                                           "attributes": [{"name": "{key}", "value": "{v}"}], "source": "M&R"}),
    "service": ("purchasing.service_agreements", {"asset_class": "{svc}", "sites": ["Pier 46", "Pier 64"], "{key}": "{v}",
                                                  "agreement_state": "active"}),
    "team": ("comms.radio_plan", {"plan": "terminal radio plan", "assignments": {"{team}": {"{key}": "{v}"}}}),
    "project": ("tos.vessel_visit", {"vessel_visit": {"id": "{p}", "phase": "inbound", "{key}": "{v}"}}),
}
TOOL_STAMP = ("polled_at", "%b %d %Y %H:%M UTC")
JSON_KEYS = {"work_area": "home_area", "che_unit": "assigned_unit", "physical_due": "physical_due_date",
             "day_foreman": "day_foreman", "night_foreman": "night_foreman", "status": "equip_status",
             "controller_fw": "controller_fw", "mechanic": "assigned_mechanic", "service_vendor": "service_provider",
             "radio_channel": "primary_channel", "eta": "eta", "berth": "planned_berth", "supercargo": "supercargo"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Fog's rolling in past {city}, the pilots might hold the inbound.",
        "Lunch truck's out front at {time}, {food} again.",
        "Reminder: {topic} on {weekday}, sign-up sheet is by the dispatch window.",
        "{name} spotted a sea lion on the fender line again, don't feed it.",
        "Trucks backed up toward {city} Ave, {n} rigs waiting at the in-gate.",
        "{name} has {n} reefers left to pre-trip before {time}.",
        "Whoever borrowed {name}'s rain gear, put it back in the locker room.",
        "Forecast for {city}: {weather}. Hard hats stay on.",
        "{name}'s retirement party is {weekday}, potluck at the union hall.",
        "Time cards due by {time}, Payroll means it this time.",
        "A driver from {city} got lost looking for the empty return again, {name} is walking him in.",
        "Potluck {weekday}: {name} is bringing {food}.",
    ],
    "tool": [
        '{{"tide_station": "{city}", "height_ft": {n}, "sky": "{weather}"}}',
        '{{"gate_trouble": {{"ticket": "TT{n}{n2}", "trucker_from": "{city}", "state": "resolved"}}}}',
        '{{"timecard": {{"worker": "{name}", "day": "{weekday}", "hours": {n}}}}}',
        '{{"ppe_issue": {{"item": "hi-vis vest XL", "qty": {n}, "issued_to": "{name}"}}}}',
    ],
    "tool_names": ["noaa.tides", "gate.trouble_tickets", "payroll.timecards", "safety.ppe_issue"],
}

REPORTERS = (("Lorna", "user:lorna.vesselops"), ("Manny", "user:manny.yardsuper"), ("Desiree", "user:desiree.laborrelations"))
LOW_TRUST = (("document", "doc:terminal-ops-manual-2023.pdf"), ("document", "doc:sharepoint-berth-schedule-Q1"),
             ("peer", "agent:berth-window-bot"))
