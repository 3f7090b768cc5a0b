"""The ninth template set, ``fresh7``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is a haulage and delivery fleet's stream, as a dispatcher's or a transport manager's
assistant sees it. People are drivers with a home depot, a shift pattern, a regular vehicle (a
registration plate) and two routes that are easily confused (the primary route and the relief
route they cover when someone is off: the look-alike pair, "R12 Ring road east" beside "R13 Ring
road west"). The "deployments" are yard equipment in the two look-alike yards of one site (the
North Yard and the South Yard reach truck) with a status (the observation slot), the date of the
next thorough examination and a named responsible person; the "service" of an equipment type is
the contractor that maintains it; teams are crews and desks with a radio talkgroup; the
"projects" are regular runs (trunks, shuttles, multi-drops, some with look-alike names) with a
departure time, a subcontracted haulier and a lead driver.

Statements come as drivers' first-person chat ("they've given me …", "put me on … pls"),
dispatchers' third-person reports, rota and allocation lines ("Rota: X - nights"), CSV and pipe
tables with a header, "Key: value" sheets, e-mails with a subject and a sign-off, workshop
tickets ("Ticket WS-3310 updated: …"), status board lines ("[North Yard] reach truck: …"), radio
plan notes, corrections ("Correction: … not …", "actually …", "scratch that", "typo earlier") and
"as of DATE" forms. Dates are written ``4.3.2027`` and also ``2027-03-04``, ``04MAR27`` (ops
shorthand) and "since Thursday". Tool results are a rota lookup with a list of drivers, a
maintenance system's asset record, a contract search hit list, a radio talkgroup assignment and
a transport system's lane schedule. Distractors name the subject and another value without
setting the slot: a one-off cover shift, a borrowed van, a test drive, a transfer applied for, a
quote from another contractor, a hired-in machine, a relative's or a neighbour's value, questions
and negations. Its random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh7-2026-12-04-blind-fleet"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("home_depot", "shift_pattern", "assigned_vehicle", "primary_route", "relief_route"),
    "deployment": ("status", "inspection_due", "asset_lead"),
    "service": ("maintainer",),
    "team": ("talkgroup",),
    "project": ("departure_time", "subcontractor", "lead_driver"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("asset_lead", "lead_driver")
"""Attributes whose values are the world's people."""
SELF_EXCLUDED: tuple[str, ...] = ()
"""No person-valued attribute of a person in this set."""
SIBLINGS = {"primary_route": "relief_route", "relief_route": "primary_route"}
"""A driver's main route and relief route look alike ("R12 …" / "R13 …") but are not the same slot."""
VERSIONED: tuple[str, ...] = ()
DATED = ("inspection_due",)
"""Attributes whose values are future dates."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``);
    ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_ops": date.strftime("%d%b%y").upper(), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Shona", "Shauna"), ("Dariusz", "Dariush"), ("Mihai", "Mihail"), ("Deniz", "Denis"), ("Idris", "Idriss"),
                ("Bogdan", "Bohdan"), ("Carys", "Caris"), ("Wiktor", "Viktor"), ("Callum", "Calum"), ("Kerry", "Kerri"),
                ("Tadhg", "Teague"), ("Jolene", "Joleen"), ("Graeme", "Graham"), ("Lorna", "Lorne"), ("Stuart", "Stewart")),
    surnames=("Okonkwo", "McTavish", "Wisniewski", "Pritchard", "Demir", "Lockhart", "Szabo", "Ferguson"),
    cities=("Carlisle", "Preston", "Swindon", "Ipswich", "Stoke", "Perth", "Lincoln", "Wrexham",
            "Reading", "Gloucester", "Dundee", "Luton", "Kendal", "Truro", "Hereford", "Grimsby"),
    employers=(),
    languages=(),
    roles=(),
    services=("reach truck", "counterbalance forklift", "dock leveller", "yard shunter", "pallet wrapper", "diesel bowser",
              "weighbridge", "rapid charger", "reefer plug-in point", "roller shutter door", "sortation belt",
              "brake tester", "vehicle wash", "CCTV mast", "order picker"),
    environments=("North Yard", "South Yard"),
    service_statuses=("in service", "out of service", "awaiting parts", "on restricted use", "tagged out"),
    regions=(),
    owner_teams=(),
    teams=("trunking night crew", "parcel sort A-shift", "cold-chain desk", "returns desk", "yard marshals", "ADR hazmat team",
           "two-man furniture crew", "city couriers", "Sunday skeleton crew", "transport planners"),
    projects=("Leeds-Bristol night trunk", "Leeds-Bath night trunk", "Dover port shuttle", "Dover ferry shuttle", "Heathrow cargo run",
              "Felixstowe box run", "Felixstowe empties run", "Coventry supermarket drop", "Cardiff multi-drop", "Carlisle multi-drop",
              "Glasgow overnight", "Aberdeen fish run", "Norwich farm collection", "Hull chemicals run", "Exeter parcel trunk",
              "Exeter pallet trunk", "Birmingham hospital supplies", "Milton Keynes retail loop", "Southampton reefer run",
              "Sheffield steel run"),
    project_statuses=(),
    version_style="semver",
    date_format="%-d.%-m.%Y",
    foods=("bacon rolls", "jacket potatoes", "chicken curry", "steak pie", "fish and chips", "pasta bake"),
    topics=("the toolbox talk", "the Christmas peak plan", "the new yard layout", "the pay review", "the driver CPC day",
            "the fire drill", "the canteen menu", "the clocks going back"),
    pools=(
        ("home_depot", ("Daventry DC", "Avonmouth hub", "Thurrock cross-dock", "Wakefield depot", "Bellshill depot", "Magor depot",
                        "Crick DC", "Doncaster iPort", "Castle Donington hub", "Warrington Omega")),
        ("shift_pattern", ("earlies 05:00-13:30", "lates 13:00-21:30", "nights 21:00-05:30", "4-on-4-off days", "4-on-4-off nights",
                           "Tue-Sat days", "weekend relief", "split shift 06:00-10:00 / 15:00-19:00")),
        ("assigned_vehicle", ("VN73 KXD", "VN73 KXF", "YK22 OPL", "LF71 ZTR", "BD69 HJU", "WX24 RMA", "SN72 GEO", "PO23 FVN",
                              "MA21 BLK", "DY70 CRT")),
        # Primary and relief routes never share a code: the two pools are disjoint.
        ("primary_route", ("R04 Northfield", "R07 Canal side", "R11 Old Town", "R12 Ring road east", "R15 Hillcrest",
                           "R19 Retail park", "R22 Airport cargo", "R23 University", "R27 Harbourside", "R31 Industrial estate")),
        ("relief_route", ("R02 Westbrook", "R05 Millbank", "R09 Station quarter", "R13 Ring road west", "R16 Hill farms",
                          "R20 Outlet village", "R24 Airport hotels", "R28 Harbour estate", "R30 Business park", "R33 Bypass villages")),
        ("maintainer", ("Hartwell Fleet Services", "Brackley Lift Trucks", "Midshire Materials Handling", "Kestrel Engineering",
                        "Apex Dock Systems", "Trident Plant Care", "Calder Maintenance", "Norbury Electrical")),
        ("talkgroup", ("TG-YARD-1", "TG-YARD-2", "TG-TRUNK", "DISPATCH-N", "DISPATCH-S", "TG-COLD", "TG-OPS-ALL", "TG-SPARE-9")),
        ("departure_time", ("01:30", "02:15", "03:00", "03:45", "04:20", "05:10", "22:40", "23:55")),
        ("subcontractor", ("Brennan Haulage", "Corrie Transport", "Oduya & Sons", "Pellow Freight", "Kinross Logistics",
                           "Tanfield Trucking", "Westway Carriers", "Ridgeback Haulage")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["home_depot"] = {
    "state": ["{s} is based at {v}.", "Driver: {s} | Base: {v}", "{s} works out of {v}.", "Staff list\nName,Depot\n{s},{v}",
              "Hi Sunil,\n\n{s} reports to the {v} gatehouse for all shifts.\n\nThanks,\nHR Shared Services"],
    "change": ["{s} has transferred from {old} to {v}.", "Transfer approved: {s}, {old} -> {v}, effective next rota.",
               "{s} is at {v} now, moved over from {old}.",
               "Subject: Depot transfer - {s}\n\n{s} moves from {old} to {v}. Please update the rota and the fuel card site code.\n\nRegards,\nPeople Team"],
    "first_state": ["I'm based at {v}.", "i work out of {v}", "My home depot's {v}, been there years."],
    "first_change": ["I've transferred to {v}, no more driving to {old} every morning!", "moved to {v} from {old}, starting monday",
                     "Just so the system knows: I'm at {v} now, not {old}."],
    "correction": ["Correction: {s} is based at {v}, not {old}.", "Actually {s}'s depot is {v}; {old} was where they did induction.",
                   "Sorry, I had {s} down at {old}, it's {v}."],
    "as_of": ["As of {date}, {s} is based at {v}.", "Transfer effective {date_iso}: {s} to {v}.", "{s} has been working out of {v} since {weekday}."],
    "distractor": ["{s} did one shift at {x} to help them out.", "{s} has applied for a transfer to {x} but nothing's confirmed.",
                   "Is {s} at {x}? Their name's on the sign-in sheet there.", "{s}'s brother works at {x}.",
                   "{s} is not at {x}; that's a different driver with the same surname."],
    "q_current": ["Which depot is {s} based at now?"],
    "q_as_of": ["Which depot was {s} based at on {date}?"],
    "q_history": ["Which depot was {s} based at before {v}?"],
}
T["shift_pattern"] = {
    "state": ["{s} works {v}.", "Rota: {s} - {v}", "{s} is on {v} this rota period.", "Name | Shift\n{s} | {v}"],
    "change": ["{s} has moved from {old} to {v}.", "Rota change: {s} goes onto {v} (was {old}).",
               "{s} swapped off {old}, they're on {v} now.", "Ticket HR-2214: shift change for {s}. From: {old}. To: {v}. Status: approved."],
    "first_state": ["I'm on {v}.", "i do {v}", "My shift's {v}, so don't book me anything outside that."],
    "first_change": ["I've gone onto {v}, finally off {old}.", "put me on {v} now pls, not {old}", "Starting {v} this week, done with {old}."],
    "correction": ["Correction: {s} works {v}, not {old}.", "Actually {s} is on {v}; {old} was the old rota.",
                   "My mistake, {s} isn't on {old}, it's {v}."],
    "as_of": ["As of {date}, {s} works {v}.", "From {date_ops}: {s} on {v}.", "{s} has been on {v} since {weekday}."],
    "distractor": ["{s} did a one-off {x} to cover sickness.", "{s} asked about going onto {x} after the summer.",
                   "Would {s} do {x} if we paid the premium?", "{s}'s partner works {x} at the hospital.",
                   "{s} is not on {x}; that's the agency driver."],
    "q_current": ["Which shift pattern does {s} work now?"],
    "q_as_of": ["Which shift pattern did {s} work on {date}?"],
    "q_history": ["Which shift pattern did {s} work before {v}?"],
}
T["assigned_vehicle"] = {
    "state": ["{s} drives {v}.", "Vehicle allocation: {s} -> {v}", "{s}'s van is {v}.",
              "Keys for {v} are signed out to {s} as their regular vehicle.", "Reg,Driver\n{v},{s}"],
    "change": ["{s} has been moved from {old} to {v}.", "{old} is off the road, so {s} drives {v} now.",
               "Reallocation: {s} now has {v} instead of {old}.", "{s} handed back {old} and took {v} as their regular."],
    "first_state": ["I drive {v}.", "my van is {v}", "I'm always in {v}."],
    "first_change": ["They've given me {v}, {old} went back to the lease company.", "new van {v}, not {old} anymore",
                     "I'm in {v} now instead of {old}, the tail-lift on the old one was shot."],
    "correction": ["Correction: {s}'s vehicle is {v}, not {old}.", "Actually {s} drives {v}; {old} is the spare.",
                   "Typo earlier, {s} is in {v} not {old}."],
    "as_of": ["As of {date}, {s} drives {v}.", "Allocation sheet {date_iso}: {s}, {v}", "{s} has had {v} since {weekday}."],
    "distractor": ["{s} borrowed {x} for one run while theirs was in the wash.", "{s} test-drove {x} before it went into the fleet.",
                   "Can {s} take {x} tomorrow?", "{s}'s son has {x} on his own firm's fleet.",
                   "{s} was not in {x}; the camera shows someone else."],
    "q_current": ["Which vehicle does {s} drive now?"],
    "q_as_of": ["Which vehicle did {s} drive on {date}?"],
    "q_history": ["Which vehicle did {s} drive before {v}?"],
}
T["primary_route"] = {
    "state": ["{s}'s main route is {v}.", "{s} runs {v} most days.", "Route sheet\nDriver: {s}\nPrimary: {v}",
              "{s} knows {v} inside out, that's their route."],
    "change": ["{s} has taken over {v}; {old} goes to someone else.", "{s}'s primary route changed from {old} to {v}.",
               "Route planning: {s} moves off {old} onto {v} as main route.", "{s} is doing {v} as their main run now, not {old}."],
    "first_state": ["My route is {v}.", "i do {v} every day", "I'm the regular on {v}."],
    "first_change": ["I've got {v} now as my route, {old} is someone else's.", "they moved me onto {v} from {old}",
                     "My main run is {v} from this week, not {old}."],
    "correction": ["Correction: {s}'s main route is {v}, not {old}.", "Scratch that, {s} runs {v} not {old}.",
                   "Actually {s}'s regular route is {v}; {old} was a mistake on the sheet."],
    "as_of": ["As of {date}, {s}'s main route is {v}.", "Route plan {date_ops}: {s} primary {v}", "{s} has run {v} since {weekday}."],
    "distractor": ["{s} covered {x} once when the regular was off sick.", "{s} would like {x} if it ever comes up.",
                   "Does {s} know {x}?", "{s}'s neighbour drives {x} for us.", "{s} doesn't do {x}, never has."],
    "q_current": ["What is {s}'s primary route now?"],
    "q_as_of": ["What was {s}'s primary route on {date}?"],
    "q_history": ["What was {s}'s primary route before {v}?"],
}
T["relief_route"] = {
    "state": ["{s} covers {v} as relief.", "{s}'s relief route is {v}.", "Route sheet\nDriver: {s}\nRelief: {v}",
              "If the regular is off, {s} picks up {v}."],
    "change": ["{s}'s relief route changed from {old} to {v}.", "{s} now covers {v} when needed, instead of {old}.",
               "Relief cover: {s} moved from {old} to {v}."],
    "first_state": ["I'm relief on {v}.", "i cover {v} when they're short", "Backup route for me is {v}."],
    "first_change": ["I'm relief on {v} now, not {old}.", "swap my relief route to {v}, drop {old}",
                     "They've changed my cover route to {v}; I'm off {old}."],
    "correction": ["Correction: {s} covers {v} as relief, not {old}.", "Actually {s}'s cover route is {v}, {old} was last quarter."],
    "as_of": ["As of {date}, {s} covers {v} as relief.", "Relief list {date_iso}: {s} on {v}", "{s} has been relief for {v} since {weekday}."],
    "distractor": ["{s} got sent out on {x} once by mistake.", "Maybe {s} could learn {x} over the summer.",
                   "Who covers {x}? Not {s}, I think.", "{s} isn't on {x}; the sheet is out of date."],
    "q_current": ["Which relief route does {s} cover now?"],
    "q_as_of": ["Which relief route did {s} cover on {date}?"],
    "q_history": ["Which relief route did {s} cover before {v}?"],
}
T["status"] = {
    "state": ["The {env} {svc} is {v}.", "{svc} ({env}) - {v}", "[{env}] {svc}: {v}", "Walked past the {svc} on the {env}, it's {v}.",
              '{{"asset": "{svc}", "yard": "{env}", "state": "{v}"}}'],
    "change": ["The {env} {svc} went from {old} to {v}.", "Ticket WS-3310 updated: {svc} at {env} now {v} (previously {old}).",
               "{env} {svc} is {v} now.", "Status change - {svc}/{env}: {old} => {v}"],
    "correction": ["Correction: the {env} {svc} is {v}, not {old}; I was looking at the other yard.",
                   "Actually the {svc} on the {env} is {v}, the board hadn't been updated."],
    "as_of": ["As of {date}, the {env} {svc} is {v}.", "{date_iso} {env} {svc} {v}", "The {svc} on the {env} has been {v} since {weekday}."],
    "distractor": ["If the {env} {svc} ends up {x} again we'll hire one in.", "Is the {svc} on the {env} {x}? Someone left a note on it.",
                   "The hire company's {svc} was {x} when it turned up.", "The {svc} at the depot down the road is {x}, not ours on the {env}."],
    "q_current": ["What is the status of the {svc} on the {env} now?"],
    "q_as_of": ["What was the status of the {svc} on the {env} on {date}?"],
    "q_history": ["What was the status of the {svc} on the {env} before it was {v}?"],
}
T["inspection_due"] = {
    "state": ["The {env} {svc} is due its next inspection on {v}.", "Next thorough examination, {svc} ({env}): {v}",
              '{{"asset": "{env} {svc}", "next_exam": "{v}"}}', "Inspection sticker on the {env} {svc} says next due {v}."],
    "change": ["The {env} {svc} inspection has been moved from {old} to {v}.", "{env} {svc}: exam rescheduled {old} -> {v}",
               "Hi Moira,\n\nWe need to rebook the {svc} at {env}: new date {v} instead of {old}.\n\nRegards,\nInspection Services"],
    "correction": ["Correction: the {env} {svc} is due {v}, not {old}.",
                   "Actually the {svc} on the {env} is next inspected {v}; {old} was the other yard's."],
    "as_of": ["As of {date}, the {env} {svc} is next due for inspection on {v}.", "Planner export {date_iso}: {env} {svc} exam due {v}"],
    "distractor": ["The hired {svc} is due an inspection on {x}.", "Could the {env} {svc} be done on {x} instead? The engineer asked."],
    "q_current": ["When is the {svc} on the {env} next due for inspection?"],
    "q_as_of": ["When was the {svc} on the {env} next due for inspection, as known on {date}?"],
    "q_history": ["When was the {svc} on the {env} due for inspection before {v}?"],
}
T["asset_lead"] = {
    "state": ["{v} is the responsible person for the {env} {svc}.", "Asset owner, {svc} ({env}): {v}",
              "Any issues with the {svc} on the {env}, talk to {v}.", "{env} {svc} - named lead {v}"],
    "change": ["{v} has taken over the {env} {svc} from {old}.", "Responsible person for the {svc} ({env}) changed from {old} to {v}.",
               "{old} handed over the {env} {svc} to {v} today."],
    "correction": ["Correction: {v} looks after the {env} {svc}, not {old}.", "Actually it's {v} for the {svc} on the {env}; {old} only did the training."],
    "as_of": ["As of {date}, {v} is responsible for the {env} {svc}.", "Asset register {date_ops}: {env} {svc}, lead {v}",
              "{v} has been in charge of the {env} {svc} since {weekday}."],
    "distractor": ["{x} is trained on the {env} {svc} but doesn't look after it.", "Could {x} take over the {svc} on the {env} during the leave?",
                   "{x} used the {env} {svc} for an hour this morning.", "{x} is not responsible for the {env} {svc}, whatever the old sign says."],
    "q_current": ["Who is responsible for the {svc} on the {env} now?"],
    "q_as_of": ["Who was responsible for the {svc} on the {env} on {date}?"],
    "q_history": ["Who was responsible for the {svc} on the {env} before {v}?"],
}
T["maintainer"] = {
    "state": ["Our {svc}s are serviced by {v}.", "Maintenance contract, {svc}: {v}", "Call {v} for any {svc} breakdown, both yards.",
              "Equipment | Contractor\n{svc} | {v}"],
    "change": ["The {svc} maintenance contract has moved from {old} to {v}.", "{svc}s now go to {v} for repairs, not {old}.",
               "Subject: {svc} servicing\n\nFrom today {v} service all our {svc}s; the {old} contract has ended.\n\nProcurement"],
    "correction": ["Correction: {v} services the {svc}s, not {old}.", "Actually {svc} repairs are {v}; {old} only did the install."],
    "as_of": ["As of {date}, {v} maintains the {svc}s.", "Contract register {date_iso}: {svc} -> {v}", "{v} have looked after the {svc}s since {weekday}."],
    "distractor": ["We got a quote from {x} for the {svc}s, might switch if it's cheaper.", "{x} came out to a {svc} once when our lot couldn't.",
                   "Does {x} even do {svc}s?", "The site next door uses {x} for their {svc}."],
    "q_current": ["Which contractor maintains the {svc}s now?"],
    "q_as_of": ["Which contractor maintained the {svc}s on {date}?"],
    "q_history": ["Which contractor maintained the {svc}s before {v}?"],
}
T["talkgroup"] = {
    "state": ["The {team} is on {v}.", "Radio plan: {team} = {v}", "{team}, use {v} on the radios.", "Talkgroup | Crew\n{v} | {team}"],
    "change": ["The {team} has moved from {old} to {v}.", "Radio change: {team} now on {v}, {old} is being retired.",
               "Heads up all, {team} switch your handsets to {v} (not {old})."],
    "correction": ["Correction: the {team} is on {v}, not {old}.", "Actually the {team} talkgroup is {v}; {old} is the yard's."],
    "as_of": ["As of {date}, the {team} uses {v}.", "Radio plan rev {date_ops}: {team} on {v}", "The {team} has been on {v} since {weekday}."],
    "distractor": ["The {team} used {x} for the fire drill only.", "We might put the {team} on {x} if the interference carries on.",
                   "Can the {team} hear {x}?", "The {team} isn't on {x}, that's the agency crew."],
    "q_current": ["Which talkgroup is the {team} on now?"],
    "q_as_of": ["Which talkgroup was the {team} on on {date}?"],
    "q_history": ["Which talkgroup was the {team} on before {v}?"],
}
T["departure_time"] = {
    "state": ["The {p} departs at {v}.", "{p}: dep {v}", "Timetable\nRun: {p}\nDeparture: {v}", "The {p} leaves the gate at {v} sharp."],
    "change": ["The {p} now leaves at {v} instead of {old}.", "Schedule change - {p}: departure {old} -> {v}.",
               "Customer asked us to move the {p} from {old} to {v}."],
    "correction": ["Correction: the {p} departs {v}, not {old}.", "Actually the {p} goes at {v}; {old} was the Christmas timetable."],
    "as_of": ["As of {date}, the {p} departs at {v}.", "{date_ops} timetable: {p} dep {v}", "The {p} has left at {v} since {weekday}."],
    "distractor": ["The {p} ran at {x} once because of the roadworks.", "Could the {p} go at {x} instead? The customer asked.",
                   "Did the {p} leave at {x} last night?", "The {p} doesn't leave at {x}, that's the return leg."],
    "q_current": ["What time does the {p} depart now?"],
    "q_as_of": ["What time did the {p} depart on {date}?"],
    "q_history": ["What time did the {p} depart before {v}?"],
}
T["subcontractor"] = {
    "state": ["The {p} is subcontracted to {v}.", "Haulier for {p}: {v}", "{v} run the {p} for us.",
              '{{"lane": "{p}", "carrier": "{v}", "rate_card": "2025-B"}}'],
    "change": ["The {p} has moved from {old} to {v}.", "{v} take over the {p} from {old} this week.",
               "Subject: {p} carrier change\n\nPlease note {v} now operate the {p}. {old} are off it.\n\nTransport Planning"],
    "correction": ["Correction: {v} run the {p}, not {old}.", "Actually the {p} haulier is {v}; {old} only did the trial."],
    "as_of": ["As of {date}, the {p} is run by {v}.", "Carrier list {date_iso}: {p}, {v}", "{v} have run the {p} since {weekday}."],
    "distractor": ["{x} quoted for the {p}; we'll move it if the price is right.", "{x} helped out on the {p} over Christmas.",
                   "Are {x} still interested in the {p}?", "{x} don't do the {p}, they're on the Dover work."],
    "q_current": ["Which haulier runs the {p} now?"],
    "q_as_of": ["Which haulier ran the {p} on {date}?"],
    "q_history": ["Which haulier ran the {p} before {v}?"],
}
T["lead_driver"] = {
    "state": ["{v} is the lead driver on the {p}.", "Lead driver, {p}: {v}", "{v} leads the {p}, ask them about the customer's gate codes."],
    "change": ["{v} has taken over the {p} from {old}.", "Lead on the {p} changed from {old} to {v}.", "{old} has come off the {p}; {v} leads it now."],
    "correction": ["Correction: {v} leads the {p}, not {old}.", "Actually {v} is lead on the {p}; {old} was only covering."],
    "as_of": ["As of {date}, {v} is lead driver on the {p}.", "Driver plan {date_ops}: {p} lead {v}", "{v} has been leading the {p} since {weekday}."],
    "distractor": ["{x} did the {p} once while the lead was on holiday.", "{x} wants to lead the {p} next year.",
                   "Could {x} do the {p} on Friday?", "{x} isn't on the {p}, they're on the return."],
    "q_current": ["Who is the lead driver on the {p} now?"],
    "q_as_of": ["Who was the lead driver on the {p} on {date}?"],
    "q_history": ["Who was the lead driver on the {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A rota lookup with a list of drivers, a maintenance system's asset record, a contract
    # search hit list, a radio talkgroup assignment and a transport system's lane schedule.
    "person": ("rota.lookup", {"week": "current", "drivers": [{"name": "{s}", "{key}": "{v}"}]}),
    "deployment": ("cmms.get_asset", {"asset_tag": "{env}/{svc}", "site": "{env}", "props": {"{key}": "{v}"}}),
    "service": ("contracts.search", {"hits": 1, "results": [{"equipment_class": "{svc}", "{key}": "{v}"}]}),
    "team": ("radio.talkgroups", {"group": "{team}", "assigned": {"{key}": "{v}"}}),
    "project": ("tms.lane_schedule", {"lane": "{p}", "active": True, "schedule": {"{key}": "{v}"}}),
}
TOOL_STAMP = ("retrieved", "%d-%b-%Y %H:%M UTC")
JSON_KEYS = {"home_depot": "base_depot", "shift_pattern": "shift", "assigned_vehicle": "vehicle_reg", "primary_route": "primary_route",
             "relief_route": "relief_route", "status": "condition", "inspection_due": "next_thorough_exam",
             "asset_lead": "responsible_person", "maintainer": "maintenance_contractor", "talkgroup": "talkgroup",
             "departure_time": "planned_departure", "subcontractor": "carrier", "lead_driver": "lead_driver"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Traffic's terrible on the M{n} again, allow extra time.",
        "{name} is on break until {time}.",
        "Anyone want {food} from the canteen on {weekday}?",
        "Reminder: {topic} is on {weekday}.",
        "Weather near {city} looks {weather} for tonight's runs.",
        "{name} says the coffee machine in the drivers' room is broken again.",
        "Can someone cover the gate at {time}? {name} is stuck near {city}.",
        "Tacho downloads done for {n} vehicles.",
        "lol {name} just reversed into the bin store",
        "Diesel is up {n}p a litre at the {city} services.",
        "{name} wants to talk about {topic} over {food}.",
        "Who left {n} empty cages by bay {n2}?",
    ],
    "tool": [
        '{{"incidents": [{{"road": "M{n}", "near": "{city}", "delay_min": {n2}}}]}}',
        '{{"forecast": "{weather}", "location": "{city}", "wind_mph": {n}}}',
        '{{"tacho": {{"driver": "{name}", "drive_hours_left": {n}, "break_due": "{time}"}}}}',
        '{{"parcel_scan": "PX{n}{n2}", "event": "out for delivery", "hub": "{city}"}}',
    ],
    "tool_names": ["traffic.incidents", "weather.route", "tacho.remaining", "parcels.scan_events"],
}

REPORTERS = (("Bev", "user:bev.traffic"), ("Sunil", "user:sunil.dispatch"), ("Moira", "user:moira.workshop"))
LOW_TRUST = (("document", "doc:depot-noticeboard-scan.pdf"), ("document", "doc:driver-handbook-2025.docx"), ("peer", "agent:route-optimiser"))
