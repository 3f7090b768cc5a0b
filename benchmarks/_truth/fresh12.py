"""The fourteenth template set, ``fresh12``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is the ground operations of a small regional airport in northern Ontario (a few daily
turns to the hubs, some charters, two aprons), as its duty manager, apron control or the
rostering office sees it. People are ground staff with the place they are based at (a ramp
office, a pier crew room, the remote stands hut), a shift pattern, the date their airside pass
expires, and two team leaders that are easily confused (their primary team leader and the relief
team leader they go to when the primary is off: the look-alike pair, drawn from two pools where a
few names nearly match, "Tessa Kowal" beside "Tess Kowalski"). The "deployments" are ground
support equipment on the airport's two look-alike aprons (the pushback tug on North Apron and the
one on South Apron) with a status (the observation slot), the software build it runs and the
engineer responsible for it; the "service" of an equipment type is the contractor that maintains
every unit of that type on both aprons; teams are departments (Ramp Services, Load Control) with
the room they hold their shift briefing in; the "projects" are scheduled turns with look-alike
flight numbers by nature (BZ301 beside BZ310, PK62 beside PK26) with a stand, a scheduled
departure time and a turnaround coordinator, who is one of the world's own ground staff.

Statements come as ground staff's first-person chat ("fyi im at … now", "they moved me onto …"),
the duty manager's third-person notes, rostering lists with dotted leaders and "Name;Pattern"
semicolon rows, "=>" allocation lines ("Base transfer >> X: A => B", "STAND ALLOC: …"), radio-log
style "ramp control:" lines, ops log lines with a local time, handover notes, NOTAM-like GSE
notices with a "B)" start time, key=value config log lines, ACARS-like schedule shorthand, e-mails
with From/To/Re headers and a sign-off (Rostering, the ID Centre, GSE Engineering, Procurement,
Apron Allocation, Network Scheduling), corrections ("Correction: … not …", "Amend …", "Cancel my
last", "Scrap what I said") and "as of"/"w.e.f."/register-dated forms. Dates are written
``04 Mar 2027`` and also ``2027-03-04`` (registers), ``04MAR27 0912Z`` (ops shorthand),
``2703040912`` (a NOTAM's start field), ``4 March`` (roster blocks, no year) and "since Thursday".
Tool results are a rostering system's staff profile, a GSE asset lookup, a contract lookup by
equipment class, a briefing room list and an airport operational database's flight schedule,
stamped ``04 Mar 2027 0912Z``. Distractors name the subject and another value without setting the
slot: a one-off (a night covering another base, an overtime week on another pattern, a turn on
another stand because of a fuel spill, a fog-delayed departure, a covering engineer or
coordinator), a wish or a plan, a losing bid, another apron's or another airport's value, a
relative's, questions and negations. Its random stream is seeded apart from the other sets
(``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh12-2026-12-07-blind-airport-ground-ops"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("home_base", "shift", "pass_expiry", "team_leader", "relief_leader"),
    "deployment": ("status", "gse_build", "gse_engineer"),
    "service": ("gse_contractor",),
    "team": ("briefing_room",),
    "project": ("stand", "std", "turn_coordinator"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("turn_coordinator",)
"""A turn's coordinator is one of the world's ground staff; team leaders and engineers come from pools of their own."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"team_leader": "relief_leader", "relief_leader": "team_leader"}
"""A person's primary and relief team leaders look alike (and a few of their names nearly match) but are not the same slot."""
VERSIONED = ("gse_build",)
"""The software build a piece of ground equipment runs, in ``VOCAB.version_style`` (``build``: "build 2214")."""
DATED = ("pass_expiry",)
"""Attributes whose values are future dates: a person's airside pass expiry."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``04 Mar 2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_ops": date.strftime("%d%b%y").upper() + date.strftime(" %H%MZ"),
            "date_notam": date.strftime("%y%m%d%H%M"), "date_dm": date.strftime("%-d %B"), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Mathis", "Mathias"), ("Renee", "Renae"), ("Kaden", "Caden"), ("Brianna", "Breanna"),
                ("Nikhil", "Nikhila"), ("Marisol", "Marisa"), ("Tremaine", "Tremayne"), ("Gurpreet", "Gurjeet"),
                ("Ashlyn", "Ashlynn"), ("Raphael", "Rafael"), ("Josee", "Josie"), ("Keegan", "Keagan"),
                ("Mackenzie", "McKenzie"), ("Dmitri", "Dimitri"), ("Paulina", "Pauline")),
    surnames=("Beaulieu", "Okafor", "Sinclair", "Grewal", "Lachance", "Wojcik", "Redsky", "Mancini"),
    cities=("Sudbury", "Timmins", "Kenora", "Sault Ste. Marie", "North Bay", "Kapuskasing", "Dryden", "Sioux Lookout",
            "Wawa", "Marathon", "Geraldton", "Atikokan", "Fort Frances", "Red Lake", "Hearst", "Moosonee"),
    employers=(),
    languages=(),
    roles=(),
    # Ground support equipment that both aprons have.
    services=("pushback tug", "belt loader", "ground power unit", "pre-conditioned air unit", "de-icing truck",
              "hi-loader", "passenger stairs", "baggage tractor", "potable water truck", "lavatory service truck",
              "air start unit", "towbarless tractor", "catering hi-lift", "ambulift", "fuel bowser"),
    environments=("North Apron", "South Apron"),
    service_statuses=("serviceable", "unserviceable", "in the shop", "on charge", "awaiting parts", "quarantined"),
    regions=(),
    owner_teams=(),
    # Departments, said without an article ("Ramp Services brief in …").
    teams=("Ramp Services", "Baggage Handling", "Passenger Services", "Airside Operations", "Aircraft Cleaning",
           "Load Control", "PRM Assistance", "Security Screening", "De-icing Crew", "Ground Equipment Maintenance",
           "Cargo Handling", "Apron Control"),
    # Scheduled turns; neighbours have look-alike flight numbers by nature.
    projects=("BZ301 Toronto turn", "BZ310 Toronto turn", "BZ415 Winnipeg turn", "BZ451 Winnipeg turn",
              "PK62 Sudbury turn", "PK26 Sudbury turn", "PK88 Timmins turn", "PK98 Timmins turn",
              "BZ520 Ottawa turn", "BZ502 Ottawa turn", "WN7141 Calgary turn", "WN7114 Calgary turn",
              "PK140 Red Lake turn", "PK104 Red Lake turn", "BZ633 Montreal turn", "BZ663 Montreal turn",
              "CH12 Sioux Lookout charter", "CH21 Sioux Lookout charter", "PK77 Kenora turn", "PK71 Kenora turn"),
    project_statuses=(),
    version_style="build",
    date_format="%d %b %Y",
    foods=("poutine", "butter tarts", "Timbits", "pickerel sandwiches", "chili", "Nanaimo bars"),
    topics=("the winter ops briefing", "the FOD walk", "the new headset trial", "the de-icing recurrent",
            "the union meeting", "the apron speed limit", "the hi-vis order", "the staff car park gritting"),
    pools=(
        # Home bases, said with "the" ("based at the remote stands hut").
        ("home_base", ("Terminal A baggage make-up area", "Terminal B ramp office", "Pier 1 crew room", "Pier 2 crew room",
                       "remote stands hut", "cargo shed", "GA terminal", "domestic arrivals hall",
                       "international check-in zone", "de-icing pad office")),
        ("shift", ("earlies", "lates", "nights", "middles", "4 on 4 off", "5 on 2 off", "split shifts",
                   "alternating earlies and lates", "weekends only", "the relief line")),
        # Primary and relief team leaders come from two pools; a few names nearly match across them.
        ("team_leader", ("Tessa Kowal", "Marcus Bellamy", "Priyanka Dhillon", "Gord Lafleur", "Shelby Arsenault",
                         "Farid Haidari", "Lianne Boucher", "Curtis Oakes", "Nadia Petrenko", "Rob McAllister")),
        ("relief_leader", ("Tess Kowalski", "Marc Bellamy", "Priya Dhillon", "Darlene Whitebird", "Kyle Fournier",
                           "Yasmin Rahimi", "Ross Tessier", "Jen Okonjo", "Wade Hamelin", "Amrit Sandhu")),
        ("gse_engineer", ("Hal Brierley", "Dev Sandhu", "Monique Gagnon", "Trevor Lindgren", "Abdi Warsame",
                          "Krista Vaillancourt", "Pat O'Rourke", "Sunil Mehta", "Joanne Tremblay", "Lyle Beaudry")),
        ("gse_contractor", ("Boreal Ground Equipment", "Lakehead Hydraulics", "Nipigon Fleet Repair",
                            "Superior Aviation Services", "Kaministiquia Diesel", "Algoma Airside Maintenance",
                            "Polar Tug & Tractor", "Shield Electrical Contractors", "Thunder Cape Ground Support",
                            "Trans-Canada GSE Solutions")),
        # Briefing rooms, said with "the".
        ("briefing_room", ("Ops 2 briefing room", "crew room", "ramp office mezzanine", "baggage hall portakabin",
                           "Gate 6 holdroom", "fire station classroom", "landside training room",
                           "tower base meeting room", "cargo shed office", "workshop canteen")),
        ("stand", ("Stand 1", "Stand 2", "Stand 4", "Stand 5", "Stand 7", "Stand 8", "Stand 11", "Stand 12",
                   "Stand 14", "Stand 15")),
        ("std", ("06:05", "06:40", "07:15", "07:50", "08:25", "11:10", "13:35", "15:20", "17:45", "19:05")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["home_base"] = {
    "state": ["{s} is based at the {v}.", "Home base roster\n{s} ........ {v}",
              "You'll find {s} at the {v} most shifts, that's their base.", "{s} (base: {v})"],
    "change": ["{s} is now based at the {v}, moved over from the {old}.", "Base transfer >> {s}: {old} => {v}",
               "Handover note: {s} no longer works out of the {old}; ask at the {v} for them from now on.",
               "From: Ground Ops Rostering\nTo: Ramp TLs\nRe: Base change, {s}\n\n{s} transfers from the {old} to the {v} "
               "with immediate effect. Lockers to be swapped by end of week.\n\nRostering"],
    "first_state": ["I'm based at the {v}.", "my base is the {v}, come find me there", "Work out of the {v} mostly."],
    "first_change": ["They've moved me to the {v}, no more {old} for me", "Transferred to the {v} today - bye bye {old}.",
                     "fyi im at the {v} now not the {old}"],
    "correction": ["Correction: {s} is based at the {v}, not the {old}.", "Amend previous: {s} base = {v}. {old} entered in error.",
                   "Scrap what I said about {s} - their base is the {v}, the {old} was last year's."],
    "as_of": ["As of {date}, {s} is based at the {v}.", "Roster extract {date_iso}: {s} / base {v}",
              "{s} has been working out of the {v} since {weekday}.", "W.e.f. {date_ops}: {s} based {v}."],
    "distractor": ["{s} is covering at the {x} for tonight only.", "{s} has applied for a move to the {x}, nothing decided yet.",
                   "Is {s} at the {x} these days? Their hi-vis is on the hook there.", "{s}'s sister works at the {x}.",
                   "{s} isn't based at the {x}, they just park there."],
    "q_current": ["Where is {s} based now?"],
    "q_as_of": ["Where was {s} based on {date}?"],
    "q_history": ["Where was {s} based before the {v}?"],
}
T["shift"] = {
    "state": ["{s} is rostered on {v}.", "Roster pattern: {s} - {v}", "Name;Pattern\n{s};{v}", "{s} is on {v} this roster block."],
    "change": ["{s} has switched patterns, {old} to {v}.", "Roster change >> {s}: {old} => {v}",
               "From: Ground Ops Rostering\nRe: {s} pattern\n\n{s} comes off {old} and is on {v} from this roster block. "
               "Please update the sign-in sheets.\n\nRostering"],
    "first_state": ["I do {v}.", "I work {v}, so don't book me for anything outside that.", "{v} for me, have been for ages."],
    "first_change": ["Finally off {old}! On {v} from this block.", "they moved me onto {v}, {old} is done"],
    "correction": ["Correction: {s}'s pattern is {v}, not {old}.", "Amend roster note: {s} works {v}; {old} was the draft."],
    "as_of": ["As of {date}, {s}'s roster pattern is {v}.", "Roster block starting {date_dm}: {s} on {v}",
              "{s} has worked {v} since {weekday}."],
    "distractor": ["{s} is swapping onto {x} for one week only to cover leave.", "{s} would love to go onto {x}, there's a waiting list.",
                   "Did {s} switch to {x}? They were in at a weird time.", "{s}'s partner works {x} in the tower.",
                   "{s} isn't on {x}, that was a one-off swap."],
    "q_current": ["Which roster pattern does {s} have now?"],
    "q_as_of": ["Which roster pattern did {s} have on {date}?"],
    "q_history": ["Which roster pattern did {s} have before {v}?"],
}
T["pass_expiry"] = {
    "state": ["{s}'s airside pass expires on {v}.", "ID pass register\n{s} ........ exp {v}",
              "Pass office: {s}'s airside ID is valid to {v}."],
    "change": ["{s}'s airside pass was renewed: expiry moved from {old} to {v}.",
               "Pass office >> {s}: new expiry {v} (old card, exp {old}, handed back).",
               "From: Airport ID Centre\nTo: {s}\nRe: Pass renewal\n\nYour renewed airside pass is ready for collection. New "
               "expiry {v}; the card expiring {old} must be returned at collection.\n\nID Centre"],
    "first_state": ["My airside pass runs out {v}.", "pass expires {v}, need to remember to book the renewal"],
    "first_change": ["Picked up my new pass, good till {v} now instead of {old}.", "renewed my airside id, expiry is {v} (was {old})"],
    "correction": ["Correction: {s}'s pass expiry is {v}, not {old}.",
                   "Sorry, misread the card - {s}'s airside pass expires {v}; {old} is their apron driving permit."],
    "as_of": ["As of {date}, {s}'s airside pass is valid until {v}.", "Pass register {date_iso}: {s} exp {v}",
              "ID centre audit {date_ops}: {s} - expiry {v}"],
    "q_current": ["When does {s}'s airside pass expire now?"],
    "q_as_of": ["When was {s}'s airside pass due to expire, as known on {date}?"],
    "q_history": ["When was {s}'s airside pass due to expire before {v}?"],
}
T["team_leader"] = {
    "state": ["{s}'s team leader is {v}.", "TL allocations\n{s} -> {v} (primary)", "{s} reports to {v} on shift.",
              "Name;Primary TL\n{s};{v}", "Anything about {s}'s leave, go through {v}, they're the primary TL."],
    "change": ["{s} now reports to {v}; {old} has handed over the team.", "TL change >> {s}: primary {old} => {v}",
               "Handover note: {old} is no longer {s}'s primary TL, {v} has picked them up."],
    "first_state": ["My TL is {v}.", "{v}'s my team leader, ask them", "I report to {v} on shift."],
    "first_change": ["Got moved to {v}'s team, {old} was sad to see me go", "new TL for me: {v}, not {old} any more"],
    "correction": ["Correction: {s}'s primary TL is {v}, not {old}.", "Amend: {s} sits under {v}; {old} was keyed against the wrong name."],
    "as_of": ["As of {date}, {s}'s primary team leader is {v}.", "TL matrix {date_iso}: {s} / primary {v}",
              "{s} has been in {v}'s team since {weekday}."],
    "distractor": ["{x} is signing {s}'s timesheet this week while their TL is off.", "{s} asked to move into {x}'s team, no answer yet.",
                   "Is {x} {s}'s TL now? Saw them doing {s}'s check-in.", "{x} is not {s}'s team leader, just the one who trained them."],
    "q_current": ["Who is {s}'s primary team leader now?"],
    "q_as_of": ["Who was {s}'s primary team leader on {date}?"],
    "q_history": ["Who was {s}'s primary team leader before {v}?"],
}
T["relief_leader"] = {
    "state": ["{s}'s relief TL is {v}.", "TL allocations\n{s} -> {v} (relief)", "When the primary's off, {s} goes to {v}.",
              "Name;Relief TL\n{s};{v}"],
    "change": ["{s}'s relief team leader has changed from {old} to {v}.", "Relief TL >> {s}: {old} out, {v} in.",
               "{v} takes over as {s}'s relief TL; {old} has gone to days in the tower."],
    "first_state": ["{v} is my relief TL.", "if my TL's off I go to {v}"],
    "first_change": ["My relief TL is {v} now, {old} moved on.", "relief tl changed to {v}, it used to be {old}"],
    "correction": ["Correction: {s}'s relief TL is {v}, not {old}.", "Sorry, mixed them up - {v} is relief for {s}, {old} never was."],
    "as_of": ["As of {date}, {s}'s relief team leader is {v}.", "TL matrix {date_iso}: {s} / relief {v}",
              "{v} has been {s}'s relief TL since {weekday}."],
    "distractor": ["{x} covered as relief for {s} on one shift last week.", "{s} wouldn't mind {x} as their relief TL.",
                   "Is {x} the relief for {s} now?", "{x} is the relief TL for the other line, not {s}'s."],
    "q_current": ["Who is {s}'s relief team leader now?"],
    "q_as_of": ["Who was {s}'s relief team leader on {date}?"],
    "q_history": ["Who was {s}'s relief team leader before {v}?"],
}
T["status"] = {
    "state": ["Right now the {svc} on {env} is {v}.", "GSE NOTICE\nLOC: {env}\nEQPT: {svc}\nSTATE: {v}",
              "ramp control: {env}, the {svc} is {v}, over.", "GSE board: {env} / {svc} / {v}", "GSE STS {env} {svc} {v}"],
    "change": ["The {svc} on {env} changed from {old} to {v}.", "Ops log 0615L: {env} {svc} now {v}, previously {old}.",
               "ramp control: be advised the {svc} on {env} is {v}, no longer {old}.",
               "From: GSE Desk\nTo: Apron Control; Ramp TLs\nRe: {env} {svc}\n\nThe {svc} on {env} is {v} (was {old}). Plan "
               "turns accordingly.\n\nGSE Desk"],
    "correction": ["Correction: the {env} {svc} is {v}, not {old} - I had the other apron's board up.",
                   "Cancel my last on the {svc}: the {env} unit is {v}, not {old}."],
    "as_of": ["As of {date}, the GSE desk has the {svc} on {env} as {v}.", "GSE NOTICE B) {date_notam} LOC {env} EQPT {svc} STATE {v}",
              "The {env} {svc} has stayed {v} since {weekday}.", "{date_ops} {env} {svc}: {v}"],
    "distractor": ["If the {svc} on {env} ends up {x}, call the GSE desk.",
                   "Is the {svc} on {env} {x}? The driver said it was making a noise.",
                   "The {svc} on the cargo apron is {x}, not the {env} one.",
                   "Someone asked if the {env} {svc} was {x}; nobody's checked yet."],
    "q_current": ["What GSE state is the {svc} on {env} showing now?"],
    "q_as_of": ["What GSE state was the {svc} on {env} showing on {date}?"],
    "q_history": ["What GSE state was the {svc} on {env} showing before it was {v}?"],
}
T["gse_build"] = {
    "state": ["The {svc} on {env} runs software {v}.", "{env} / {svc} / SW {v}", "Config check: {env} {svc} reporting {v}.",
              "unit={svc} apron={env} sw={v}"],
    "change": ["The {svc} on {env} was updated from {old} to {v}.", "Flashed {v} onto the {env} {svc} (replaces {old}).",
               "unit={svc} apron={env} sw_old={old} sw_new={v} result=OK",
               "From: GSE Engineering\nRe: Software update, {env} {svc}\n\nThe {svc} on {env} now runs {v}. Roll-back image "
               "{old} kept on the engineering laptop.\n\nGSE Engineering"],
    "correction": ["Correction: the {env} {svc} runs {v}, not {old}.", "Amend config sheet: {env} {svc} = {v}; {old} was a typo."],
    "as_of": ["As of {date}, the {svc} on {env} runs {v}.", "Config audit {date_iso}: {env} {svc} {v}",
              "The {env} {svc} has been on {v} since {weekday}."],
    "q_current": ["Which software build is the {svc} on {env} running now?"],
    "q_as_of": ["Which software build was the {svc} on {env} running on {date}?"],
    "q_history": ["Which software build was the {svc} on {env} running before {v}?"],
}
T["gse_engineer"] = {
    "state": ["{v} is the responsible engineer for the {svc} on {env}.", "{env} {svc} - resp. eng: {v}",
              "Faults on the {env} {svc} go to {v}.", "ramp control: for the {env} {svc} call {v} on the engineering channel."],
    "change": ["{v} is now responsible for the {env} {svc}, taking it over from {old}.",
               "Resp. engineer change >> {env} {svc}: {old} => {v}",
               "Handover note: {old} has passed the {svc} on {env} to {v}."],
    "correction": ["Correction: the {env} {svc} is {v}'s, not {old}'s.",
                   "Sorry, wrong name - {v} looks after the {svc} on {env}, not {old}."],
    "as_of": ["As of {date}, {v} is responsible for the {svc} on {env}.", "Engineering matrix {date_iso}: {env} {svc} - {v}",
              "{v} has been the {env} {svc}'s engineer since {weekday}."],
    "distractor": ["{x} is covering the {env} {svc} while the usual engineer is on a course.",
                   "{x} had a look at the {svc} on {env} during the night shift, one-off.", "Could {x} check the {env} {svc} tomorrow?",
                   "{x} looks after the {svc} on the cargo apron, not {env}."],
    "q_current": ["Who is the responsible engineer for the {svc} on {env} now?"],
    "q_as_of": ["Who was the responsible engineer for the {svc} on {env} on {date}?"],
    "q_history": ["Who was the responsible engineer for the {svc} on {env} before {v}?"],
}
T["gse_contractor"] = {
    "state": ["{v} maintain the {svc} fleet on both aprons.", "GSE contracts\n{svc} => {v}",
              "Equipment class: {svc}\nMaintainer: {v}", "For {svc} breakdowns it's {v}, whichever apron."],
    "change": ["Maintenance of the {svc} units has moved from {old} to {v}.", "{v} won the {svc} maintenance tender; {old} finish at month end.",
               "From: Airport Procurement\nTo: GSE Desk\nRe: {svc} maintenance contract\n\n{v} replace {old} as maintainer of "
               "all {svc} units, North and South Apron. New call-out number on the board.\n\nProcurement"],
    "correction": ["Correction: the {svc} contract is with {v}, not {old}.", "Amend: {svc} maintainer is {v}. {old} was listed by mistake."],
    "as_of": ["As of {date}, {v} maintain the {svc} units.", "Contract list {date_iso}: {svc} - {v}",
              "{v} have had the {svc} contract since {weekday}."],
    "distractor": ["{x} bid for the {svc} contract but lost on price.", "Should we ask {x} to quote for the {svc} next year?",
                   "The airport down the highway uses {x} for their {svc}.", "{x} only delivered the {svc}, they don't maintain it.",
                   "{x} did one emergency call-out on the {svc} when the regular mob couldn't come."],
    "q_current": ["Who maintains the {svc} units now?"],
    "q_as_of": ["Who maintained the {svc} units on {date}?"],
    "q_history": ["Who maintained the {svc} units before {v}?"],
}
T["briefing_room"] = {
    "state": ["{team} brief in the {v}.", "Briefing rooms\n{team} ........ {v}", "{team} shift brief: the {v}, 15 min before on-time.",
              "If you're looking for {team} at shift start, they're in the {v}."],
    "change": ["{team} have moved their briefing from the {old} to the {v}.", "Ops log: {team} briefing relocated {old} => {v}.",
               "From: {team} Manager\nRe: Briefing room\n\nAll,\n\nShift briefings are now in the {v}. The {old} is being "
               "refitted and we won't be going back.\n\n{team} Manager"],
    "correction": ["Correction: {team} brief in the {v}, not the {old}.",
                   "Cancel my last - {team} are in the {v}; the {old} was last winter."],
    "as_of": ["As of {date}, {team} brief in the {v}.", "Room plan {date_iso}: {team} - {v}",
              "{team} have briefed in the {v} since {weekday}."],
    "distractor": ["{team} are briefing in the {x} tomorrow only, fire drill.", "{team} asked for the {x} but it's too small.",
                   "Are {team} in the {x} now? Their whiteboard's in there.",
                   "{team} don't brief in the {x}, that's just where they keep the radios."],
    "q_current": ["Where do {team} brief now?"],
    "q_as_of": ["Where did {team} brief on {date}?"],
    "q_history": ["Where did {team} brief before the {v}?"],
}
T["stand"] = {
    "state": ["The {p} is allocated {v}.", "STAND ALLOC: {p} => {v}", "The {p} parks on {v}.", "Seasonal stand plan\n{p} ........ {v}"],
    "change": ["The {p} has been moved off {old} onto {v}.", "Stand change >> {p}: {old} => {v}",
               "ramp control: all stations, the {p} now on {v}, not {old}.",
               "From: Apron Allocation\nRe: {p}\n\nThe {p} is re-planned onto {v} for the rest of the season; {old} goes to "
               "the new operator.\n\nAllocation"],
    "correction": ["Correction: the {p} is on {v}, not {old}.", "Amend stand plan: {p} = {v}; {old} was the arrival-only slot."],
    "as_of": ["As of {date}, the {p} uses {v}.", "Stand plan {date_iso}: {p} {v}", "The {p} has been on {v} since {weekday}."],
    "distractor": ["The {p} went to {x} today because of the fuel spill, back tomorrow.",
                   "Could we put the {p} on {x} in summer? Ops asked.", "Was that the {p} on {x} this morning?",
                   "The {p} has never used {x}."],
    "q_current": ["Which stand does the {p} use now?"],
    "q_as_of": ["Which stand did the {p} use on {date}?"],
    "q_history": ["Which stand did the {p} use before {v}?"],
}
T["std"] = {
    "state": ["The {p} is scheduled off-blocks at {v}.", "SKED {p} STD {v}", "{p}: STD {v} local", "Schedule\n{p} | off-blocks {v}"],
    "change": ["The {p} has been retimed from {old} to {v}.", "Schedule change >> {p}: STD {old} => {v}",
               "SKD CHG {p} NEW STD {v} OLD STD {old}",
               "From: Network Scheduling\nRe: {p} retime\n\nThe {p} departs at {v} from now on instead of {old}. Crew and "
               "handling plans to follow.\n\nScheduling"],
    "correction": ["Correction: the {p} STD is {v}, not {old}.", "Sorry, {v} is right for the {p}; {old} was the arrival time."],
    "as_of": ["As of {date}, the {p} is scheduled to depart at {v}.", "Schedule {date_iso}: {p} STD {v}",
              "The {p} has been pushing back at {v} since {weekday}."],
    "distractor": ["The {p} went at {x} today because of the fog, one-off.",
                   "The airline wants to move the {p} to {x} next summer, not agreed.", "Did the {p} go at {x}? The board said so.",
                   "{x} is when the {p} lands, not when it leaves."],
    "q_current": ["What is the scheduled departure time of the {p} now?"],
    "q_as_of": ["What was the scheduled departure time of the {p} on {date}?"],
    "q_history": ["What was the scheduled departure time of the {p} before {v}?"],
}
T["turn_coordinator"] = {
    "state": ["{v} is the turnaround coordinator for the {p}.", "TC: {p} / {v}", "{v} is running the {p}.",
              "Any delay codes for the {p}, {v} signs them off."],
    "change": ["{v} has taken over coordinating the {p} from {old}.", "Turn coordinator >> {p}: {old} => {v}",
               "Handover note: the {p} is {v}'s from today, {old} has moved to the baggage hall."],
    "correction": ["Correction: {v} coordinates the {p}, not {old}.", "Sorry, {v} is the turn coordinator on the {p} - not {old}."],
    "as_of": ["As of {date}, {v} is the turnaround coordinator for the {p}.", "Turn plan {date_iso}: {p} - {v}",
              "{v} has been coordinating the {p} since {weekday}."],
    "distractor": ["{x} did the {p} yesterday while the regular coordinator was off.", "{x} would like to take on the {p}.",
                   "Was {x} on the {p} this morning?", "{x} coordinates the flight after the {p}, not the {p} itself."],
    "q_current": ["Who is the turnaround coordinator for the {p} now?"],
    "q_as_of": ["Who was the turnaround coordinator for the {p} on {date}?"],
    "q_history": ["Who was the turnaround coordinator for the {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A rostering system's staff profile, a GSE asset lookup, a contract lookup by equipment class,
    # a briefing room list and an airport operational database's flight schedule.
    "person": ("rostering.staff_profile", {"employee": {"known_as": "{s}", "unit": "Ground Handling"},
                                           "current": {"{key}": "{v}"}}),
    "deployment": ("gse.asset_lookup", {"asset": "{svc}", "location": {"apron": "{env}"}, "record": {"{key}": "{v}"}}),
    "service": ("contracts.gse_lookup", {"equipment_class": "{svc}", "coverage": "North and South Apron",
                                         "{key}": "{v}"}),
    "team": ("facilities.briefing_rooms", {"rooms": [{"department": "{team}", "{key}": "{v}", "booking": "standing"}]}),
    "project": ("aodb.flight_schedule", {"flight": "{p}", "season": "W26", "legs": [{"{key}": "{v}"}]}),
}
TOOL_STAMP = ("feed_time", "%d %b %Y %H%MZ")
JSON_KEYS = {"home_base": "home_base", "shift": "roster_pattern", "pass_expiry": "airside_pass_expiry",
             "team_leader": "primary_tl", "relief_leader": "relief_tl", "status": "gse_state", "gse_build": "sw_build",
             "gse_engineer": "responsible_engineer", "gse_contractor": "maintenance_contractor",
             "briefing_room": "briefing_location", "stand": "allocated_stand", "std": "sched_dep_local",
             "turn_coordinator": "turn_coord"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Bird strike reported on the {city} inbound, {name} is going out to check the runway.",
        "Break's at {time}, someone grab the {food}.",
        "Reminder: {topic} on {weekday}, sign the sheet in the crew room.",
        "{name} found a fox in the baggage hall again, it legged it towards the cargo shed.",
        "Passenger on the {city} flight left a guitar at the oversize belt, {name} has it.",
        "{name} has {n} bags still to reconcile before {time}.",
        "Whoever took the good ear defenders from the ramp office, {name} wants them back.",
        "Forecast for {city} today: {weather}. Gloves on the ramp.",
        "{name}'s last shift before the holidays is {weekday}, drinks at the legion after.",
        "Payroll want overtime sheets in by {time}, no excuses this time.",
        "The {city} station rang about a missing bag tag, {name} took the call.",
        "Potluck on {weekday}: {name} is bringing {food}.",
    ],
    "tool": [
        '{{"metar_station": "{city}", "wx": "{weather}", "temp_c": {n}}}',
        '{{"lost_bag": {{"ref": "YQT{n}{n2}", "routing": "{city}", "state": "traced"}}}}',
        '{{"overtime_claim": {{"staff": "{name}", "day": "{weekday}", "hours": {n}}}}}',
        '{{"stores_request": {{"item": "chock, rubber", "qty": {n}, "requested_by": "{name}"}}}}',
    ],
    "tool_names": ["wx.metar", "baggage.worldtracer", "payroll.overtime", "stores.requests"],
}

REPORTERS = (("Marlene", "user:marlene.dutymgr"), ("Dwayne", "user:dwayne.apronctl"), ("Sook-yin", "user:sookyin.rostering"))
LOW_TRUST = (("document", "doc:ground-ops-manual-2024.pdf"), ("document", "doc:intranet-stand-plan-S25"),
             ("peer", "agent:turn-planner"))
