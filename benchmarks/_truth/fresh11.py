"""The thirteenth template set, ``fresh11``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is the field operations of a regional water utility in inland New South Wales (a county
council supplying a dozen towns), as its network operations coordinator, a treatment shift
operator or its workforce officer sees it. People are field operators with the crew they are on,
the ute they drive (a fleet number, "U-318"), the date of their confined space refresher, and two
plants they are the nominated operator for that are easily confused (their water treatment plant
and their sewage treatment plant: the look-alike pair, drawn from two pools naming the same towns,
"Bindaree WTP" beside "Bindaree STP"). The "deployments" are plant equipment at the utility's two
look-alike treatment plants (the backwash pump at Yarran Creek WTP and the one at Yarran Flat WTP)
with a status (the observation slot), the PLC program version it runs and the fitter who maintains
it; the "service" of an equipment type is the contractor on the panel contract that services it
at both plants; teams are sections (Network Operations, Trade Waste) with the place they hold
their morning prestart; the "projects" are capital works jobs with look-alike names by nature
(the Kurrajong St main renewal beside the Kurrajong Rd main renewal, Bore 12 beside Bore 21) with
a planned supply shutdown date, a principal contractor and the superintendent's representative.

Statements come as operators' first-person chat ("New ute!", "they've put me on …", "cse
refresher moved AGAIN"), coordinators' third-person notes, crew sheets, fleet allocation lists,
operator nomination lists, CSV rows with a header, pipe tables, shift log and whiteboard lines,
e-mails with a subject and a sign-off (Fleet Services, WHS & Training, Procurement, SCADA &
Automation, Capital Delivery, a superintendent's representative writing to a contractor), water
interruption notices, a contract register, plant status JSON pasted from a tablet, corrections
("Correction: … not …", "Sorry, wrong fleet number", "My bad", "Oops, typo on the roster",
"Ignore my last message") and "as of"/"effective"/register-dated forms. Dates are written
``4/03/2027`` and also ``2027-03-04`` (registers and exports), ``Thursday, 4 March 2027``
(formal), ``Thu 4/3`` (whiteboards, no year) and "since Thursday". Tool results are a workforce
system's worker record, a maintenance system's asset record, a procurement contract search with a
result list, an intranet section page and a capital works job record. Distractors name the subject
and another value without setting the slot: a one-off (a borrowed ute, a weekend covering another
plant, one shift at another STP, a fill-in fitter, a prestart moved for a day, a fortnight's
delegation), a wish or a plan ("put their hand up for", "might take … when Dave retires"), a
losing quote or tender, a relative's, another shire's or another plant's value, questions and
negations. Its random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh11-2026-12-07-blind-water-utility"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("crew", "ute", "refresher", "water_plant", "sewer_plant"),
    "deployment": ("status", "plc_version", "fitter"),
    "service": ("service_agent",),
    "team": ("prestart",),
    "project": ("shutdown", "contractor", "supt_rep"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED: tuple[str, ...] = ()
"""Fitters and superintendent's representatives come from pools of their own, not the world's people
(who are the field operators)."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"water_plant": "sewer_plant", "sewer_plant": "water_plant"}
"""An operator's water plant and sewage plant look alike ("Bindaree WTP" / "Bindaree STP") but are not the same slot."""
VERSIONED = ("plc_version",)
"""The PLC program a piece of plant runs, in ``VOCAB.version_style`` (``semver``: "2.4.1")."""
DATED = ("refresher", "shutdown")
"""Attributes whose values are future dates: an operator's confined space refresher, a job's planned shutdown."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``4/03/2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_long": date.strftime("%A, %-d %B %Y"),
            "date_short": date.strftime("%a %-d/%-m"), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Brodie", "Brody"), ("Tayla", "Taylah"), ("Jaxon", "Jackson"), ("Lachlan", "Lochlan"),
                ("Bronwyn", "Bronwen"), ("Dylan", "Dillon"), ("Jayden", "Jaiden"), ("Tahlia", "Talia"),
                ("Corey", "Cory"), ("Kylie", "Kyla"), ("Mitchell", "Mitchel"), ("Darcy", "Darci"),
                ("Sione", "Sioni"), ("Kiara", "Kiarra"), ("Jarrah", "Jarra")),
    surnames=("Pollard", "Nguyen", "Fitzgerald", "Tuilagi", "Hodgson", "Papadopoulos", "Kearney", "Singh"),
    cities=("Wagga Wagga", "Albury", "Griffith", "Leeton", "Narrandera", "Cootamundra", "Junee", "Tumut",
            "Young", "Temora", "Hay", "Deniliquin", "Gundagai", "Yass", "Finley", "Holbrook"),
    employers=(),
    languages=(),
    roles=(),
    # Plant that both treatment plants have.
    services=("raw water pump", "high-lift pump", "backwash pump", "air scour blower", "chlorine dosing system",
              "fluoride dosing system", "alum dosing pump", "lime silo", "PAC doser", "turbidity analyser",
              "chlorine analyser", "UV reactor", "sludge pump", "standby generator", "flash mixer"),
    environments=("Yarran Creek", "Yarran Flat"),
    service_statuses=("in service", "out of service", "on standby", "running in manual", "isolated and tagged out"),
    regions=(),
    owner_teams=(),
    # Sections of the utility, said without an article ("Network Operations are short").
    teams=("Network Operations", "Treatment Operations", "Customer Connections", "Asset Planning", "Water Quality",
           "Electrical Services", "Mechanical Services", "Fleet & Stores", "Capital Delivery", "Trade Waste",
           "GIS & Records", "Systems Control"),
    # Capital works jobs; neighbours look alike by nature.
    projects=("Kurrajong St main renewal", "Kurrajong Rd main renewal", "Reservoir 3 roof replacement",
              "Reservoir 8 roof replacement", "Bore 12 rehabilitation", "Bore 21 rehabilitation",
              "Edward St sewer relining", "Edwards Rd sewer relining", "Bomen trunk main duplication",
              "Bomen rising main duplication", "Pine Gully SPS upgrade", "Pine Creek SPS upgrade",
              "Hammond Ave hydrant replacement", "Hammond St hydrant replacement", "Lake Albert Rd meter replacement",
              "Lake Albert Ave meter replacement", "Copland St service renewals", "Copeland St service renewals",
              "Estella reservoir inlet upgrade", "Estella reservoir outlet upgrade"),
    project_statuses=(),
    version_style="semver",
    date_format="%-d/%m/%Y",
    foods=("sausage sizzle", "meat pies", "chicken schnitzel", "lamb roast rolls", "banana bread", "Anzac biscuits"),
    topics=("the heat stress toolbox talk", "the Christmas barbecue", "the new timesheet app", "the chlorine handling course",
            "the snake awareness session", "the enterprise agreement vote", "the fleet changeover", "the safety walk"),
    pools=(
        ("crew", ("Mains 1", "Mains 2", "Leak Detection", "Hydrants", "Meters", "Valves", "Jetting", "Backflow",
                  "Reservoir Cleaning", "Service Connections")),
        ("ute", ("U-231", "U-248", "U-262", "U-277", "U-305", "U-318", "U-342", "U-356", "U-371", "U-389")),
        # Water and sewage plants come from two disjoint pools naming the same towns.
        ("water_plant", ("Bindaree WTP", "Tarcutta WTP", "Mundoora WTP", "Wirrabilla WTP", "Kooringal WTP", "Gollan WTP",
                         "Oura WTP", "Brucedale WTP", "Tumblong WTP", "Ladysmith WTP")),
        ("sewer_plant", ("Bindaree STP", "Tarcutta STP", "Mundoora STP", "Wirrabilla STP", "Kooringal STP", "Gollan STP",
                         "Oura STP", "Brucedale STP", "Tumblong STP", "Ladysmith STP")),
        ("fitter", ("Wayne Pettit", "Troy Hendry", "Nic Vassallo", "Dean Kowalczyk", "Sam Tuiasosopo", "Rebecca Hallam",
                    "Ahmed Sayed", "Craig O'Halloran", "Luke Brennan", "Tim Tran")),
        ("service_agent", ("Riverina Pump & Electrical", "Aquadose Services", "Hydrotech Instruments",
                           "Murray Valley Electrical", "ProFlow Mechanical", "Southern Cross Power Systems",
                           "Inland Process Controls", "Sturt Engineering", "Kapooka Industrial", "Clearwater Technical")),
        # Prestart places, said with "the" ("at the Sturt St depot").
        ("prestart", ("Boundary Rd depot", "Sturt St depot", "Copland St workshop", "admin building lunchroom",
                      "Kooringal reservoir shed", "level 1 training room", "stores shed", "Dobney Ave yard",
                      "Edward St crib room", "Bomen pump station")),
        ("contractor", ("Tumut Civil", "Riverina Pipeline Services", "Hume Excavations", "Kapooka Earthworks",
                        "Murrumbidgee Trenchless", "Southern Plains Civil", "Barnes & Daughters Plumbing", "Red Gum Civil",
                        "Cudgel Constructions", "Goldfields Drilling")),
        ("supt_rep", ("Megan Truscott", "Hayden Bright", "Anjali Rao", "Steve Mavros", "Vanessa Coleby", "Joel Packham",
                      "Trudy Ellwood", "Ravi Chandran", "Belinda Oakes", "Marcus Teo")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["crew"] = {
    "state": ["{s} is on the {v} crew.", "Crew sheet\n{v}: {s}", "Employee,Crew\n{s},{v}",
              "If you need {s}, they're with {v}, ring the leading hand.", "{s} - {v} crew, based at the main depot."],
    "change": ["{s} has moved from the {old} crew to the {v} crew.", "Crew change: {s} off {old}, onto {v}.",
               "{s} got poached by {v}, so {old} is a body short.",
               "Subject: Crew reshuffle\n\nHi team,\n\n{s} is joining {v} and leaving {old}. Please sort out their timesheet "
               "codes and the truck keys.\n\nCheers,\nNetwork Ops Coordinator"],
    "first_state": ["I'm on the {v} crew.", "im with {v}, ring me if something comes up on our side",
                    "{v} crew, that's me. Been there since I started."],
    "first_change": ["Moved over to {v} this week, finally off {old}.", "they've put me on {v} now, no more {old} for me",
                     "Heads up, I'm with the {v} crew now, not {old}."],
    "correction": ["Correction: {s} is on the {v} crew, not {old}.", "Sorry, had {s} down under {old} on the crew sheet - they're {v}.",
                   "My bad, {s} is with the {v} crew. {old} was a typo."],
    "as_of": ["As of {date}, {s} is on the {v} crew.", "Crew sheet {date_iso}: {s} - {v}", "{s} has been with the {v} crew since {weekday}.",
              "Effective {date_long}, {s} is part of {v}."],
    "distractor": ["{s} is helping the {x} crew out for a couple of days while they're short.",
                   "{s} put their hand up for {x} if a spot opens.", "Is {s} on {x} now? Saw them in the {x} truck.",
                   "{s}'s brother-in-law is on the {x} crew.", "{s} was never on {x}, the timesheet code was wrong."],
    "q_current": ["Which crew is {s} on now?"],
    "q_as_of": ["Which crew was {s} with on {date}?"],
    "q_history": ["Which crew was {s} on before {v}?"],
}
T["ute"] = {
    "state": ["{s} drives ute {v}.", "Fleet allocation\n{v} - {s}", "{s}'s ute is {v}.", "Vehicle,Driver\n{v},{s}",
              "{v} is {s}'s ute, so the fuel card's under their name."],
    "change": ["{s} has swapped {old} for {v}.", "Fleet changeover: {s} handed back {old} and picked up {v}.",
               "{old} went to auction, {s} is in {v} now.",
               "Subject: Vehicle reallocation - {s}\n\nHi,\n\n{s} has been reallocated {v}. {old} is going back to the pool, "
               "please update the GPS tracker and the e-tag.\n\nRegards,\nFleet Services"],
    "first_state": ["Ute {v}, that's mine.", "my ute's {v} if you need to find me on the tracker", "I drive {v}, the white dual cab."],
    "first_change": ["New ute! {v}, {old} finally got retired.", "got moved into {v}, {old} is in the workshop for good",
                     "Just so fleet know, I've swapped {old} for {v}."],
    "correction": ["Correction: {s} has {v}, not {old}.", "Sorry, wrong fleet number - {s}'s ute is {v}, {old} is someone else's."],
    "as_of": ["As of {date}, {s} is driving {v}.", "Fleet list {date_iso}: {v} - {s}", "{s}'s been in {v} since {weekday}."],
    "distractor": ["{s} borrowed {x} today because theirs had a flat.", "{s} is hoping to get {x} when the new dual cabs come in.",
                   "Who's got {x}? {s} said it was parked at the depot.", "{s}'s partner drives {x} for the parks team.",
                   "{x} is not {s}'s ute, they only moved it for the mowers."],
    "q_current": ["Which ute does {s} drive now?"],
    "q_as_of": ["Which ute did {s} drive on {date}?"],
    "q_history": ["Which ute did {s} drive before {v}?"],
}
T["refresher"] = {
    "state": ["{s}'s confined space refresher is on {v}.", "CSE refresher bookings\n{s} - {v}",
              "{s}: confined space ticket renewal course {v}",
              "{s} is booked into the confined space refresher on {v} at the training centre."],
    "change": ["{s}'s confined space refresher has moved from {old} to {v}.",
               "Training rebooked: {s}, CSE refresher now {v} (was {old}).",
               "Subject: Confined space refresher - {s}\n\nHi,\n\nThe RTO cancelled the {old} session, so {s} is now booked in "
               "for {v}.\n\nThanks,\nWHS & Training"],
    "first_state": ["My confined space refresher is {v}.", "got my cse refresher on {v}, can someone swap standby with me",
                    "I'm booked in for the confined space refresher {v}."],
    "first_change": ["My confined space refresher got moved to {v}, it was supposed to be {old}.",
                     "cse refresher moved AGAIN, {v} now not {old}"],
    "correction": ["Correction: {s}'s confined space refresher is {v}, not {old}.",
                   "Sorry, wrong date in the training matrix - {s} is booked for {v}; {old} was the first aid course."],
    "as_of": ["As of {date}, {s}'s confined space refresher is booked for {v}.", "Training matrix {date_iso}: {s} CSE refresher {v}"],
    "q_current": ["When is {s}'s confined space refresher now?"],
    "q_as_of": ["When was {s}'s confined space refresher booked for, as known on {date}?"],
    "q_history": ["When was {s}'s confined space refresher booked for before {v}?"],
}
T["water_plant"] = {
    "state": ["{s} is the nominated operator at {v}.", "Operator nominations\nWater: {v} - {s}", "{s} does the daily checks at {v}.",
              "Site,Nominated operator\n{v},{s}", "For anything at {v}, ring {s}, it's their water plant."],
    "change": ["{s} has handed {old} over and taken on {v}.", "Operator roster change: {s} moves from {old} to {v}.",
               "{s} is off {old} now; they've got {v}.",
               "Subject: Nominated operator - {v}\n\nAll,\n\n{s} is now the nominated operator for {v} and no longer looks after "
               "{old}. Please update the site contact board and the SCADA callout list.\n\nTreatment Coordinator"],
    "first_state": ["I'm the operator at {v}.", "I look after {v} on the water side.",
                    "{v} is my water plant, been doing it a few years now."],
    "first_change": ["I've got {v} now, handed {old} to the new bloke.", "moved me to {v} on the water side, no more {old}"],
    "correction": ["Correction: {s} is the operator at {v}, not {old}.", "Sorry, I listed {s} against {old} - their water plant is {v}."],
    "as_of": ["As of {date}, {s} is the nominated operator at {v}.", "Operator nominations {date_iso}: {v} - {s}",
              "{s} has been looking after {v} since {weekday}."],
    "distractor": ["{s} is covering {x} on the weekend while the regular operator's on leave.",
                   "{s} wants to do the {x} upgrade training, maybe next year.", "Is {s} on {x} now? Their name's on the daily log.",
                   "{s}'s old man ran {x} back in the day.", "{s} doesn't do {x}, the logbook entry was someone else's."],
    "q_current": ["Which water treatment plant is {s} the nominated operator for now?"],
    "q_as_of": ["Which water treatment plant was {s} the nominated operator for on {date}?"],
    "q_history": ["Which water treatment plant was {s} the nominated operator for before {v}?"],
}
T["sewer_plant"] = {
    "state": ["{s} runs {v} on the sewer side.", "Operator nominations\nSewer: {v} - {s}", "{s} does the STP rounds at {v}.",
              "STP,Operator\n{v},{s}", "{v} is {s}'s sewage plant."],
    "change": ["{s} has taken over {v}; {old} has gone to someone else.", "Sewer roster change: {s}, {old} -> {v}.",
               "{s} got moved off {old} and onto {v}."],
    "first_state": ["I run {v} on the sewer side.", "{v} is my STP", "I'm the sewage plant operator at {v}."],
    "first_change": ["They've given me {v} instead of {old}.", "swapped {old} for {v}, sewer side"],
    "correction": ["Correction: {s} runs {v}, not {old}.", "Oops, typo on the roster - {s}'s STP is {v}, not {old}."],
    "as_of": ["As of {date}, {s} runs {v}.", "STP operators, {date_long}: {v} - {s}", "{s} has been running {v} since {weekday}."],
    "distractor": ["{s} did one shift at {x} to help with the desludging.", "{s} might take {x} when Dave retires.",
                   "Does {s} do {x}? A contractor asked for them by name.", "{s}'s cousin is the operator at {x}.",
                   "{s} has never run {x}, the SCADA login was shared."],
    "q_current": ["Which sewage treatment plant does {s} run now?"],
    "q_as_of": ["Which sewage treatment plant did {s} run on {date}?"],
    "q_history": ["Which sewage treatment plant did {s} run before {v}?"],
}
T["status"] = {
    "state": ["The {svc} at {env} WTP is {v}.", "{env} WTP | {svc} | {v}", "Plant status - {env}: {svc} {v}",
              "Did my rounds at {env}, the {svc} is {v}.", '{{"site": "{env} WTP", "equipment": "{svc}", "condition": "{v}"}}'],
    "change": ["The {svc} at {env} WTP has gone from {old} to {v}.", "Shift log {env} WTP: {svc} now {v} (was {old}).",
               "Update from {env}: the {svc} is {v} as of this arvo.",
               "Subject: {env} WTP - {svc}\n\nHi all,\n\nHeads up, the {svc} is {v}. It was {old} up until today. Let the "
               "control room know if you see any alarms.\n\nShift Operator"],
    "correction": ["Correction: the {svc} at {env} WTP is {v}, not {old} - I was reading the other plant's screen.",
                   "Sorry, my mistake - the {env} {svc} is {v}, not {old}."],
    "as_of": ["As of {date} the {svc} at {env} WTP is {v}.", "{date_iso} {env} WTP {svc}: {v}",
              "The {svc} at {env} WTP's been {v} since {weekday}.", "Whiteboard, {date_short} - {env}: {svc} {v}"],
    "distractor": ["If the {svc} at {env} ends up {x}, ring the on-call electrician.",
                   "Is the {svc} at {env} {x}? SCADA's showing something odd.",
                   "The {svc} at the Junee plant is {x}, not the {env} one.",
                   "A contractor asked whether the {svc} at {env} was {x}; told him I'd check the log."],
    "q_current": ["What is the status of the {svc} at {env} WTP now?"],
    "q_as_of": ["What was the status of the {svc} at {env} WTP on {date}?"],
    "q_history": ["What was the status of the {svc} at {env} WTP before it was {v}?"],
}
T["plc_version"] = {
    "state": ["The {svc} at {env} WTP is running PLC program {v}.", "{env} | {svc} | PLC rev {v}",
              "PLC code on the {env} {svc}: v{v}", "Site,Asset,PLC program\n{env} WTP,{svc},{v}"],
    "change": ["The {svc} PLC at {env} has been updated from {old} to {v}.", "Downloaded {v} to the {env} {svc} PLC (was {old}).",
               "Integrator has loaded v{v} onto the {svc} at {env} WTP, replacing v{old}.",
               "Subject: PLC change - {env} {svc}\n\nHi,\n\nChange request approved and done. The {svc} at {env} WTP is now on "
               "program {v}; {old} is archived on the engineering server.\n\nSCADA & Automation"],
    "correction": ["Correction: the {env} {svc} is on PLC program {v}, not {old}.",
                   "Sorry, typo in the asset register - the {env} {svc} runs v{v}; v{old} was the backup copy."],
    "as_of": ["As of {date}, the {svc} at {env} WTP is running PLC program {v}.", "PLC register {date_iso}: {env} {svc} {v}",
              "The {env} {svc} has been on v{v} since {weekday}."],
    "q_current": ["What PLC program version is the {svc} at {env} WTP running now?"],
    "q_as_of": ["What PLC program version was the {svc} at {env} WTP running on {date}?"],
    "q_history": ["What PLC program version was the {svc} at {env} WTP running before {v}?"],
}
T["fitter"] = {
    "state": ["{v} looks after the {svc} at {env} WTP.", "{env} {svc} - maintainer: {v}",
              "Asset,Responsible fitter\n{env} {svc},{v}", "Any dramas with the {env} {svc}, call {v}, it's theirs."],
    "change": ["{v} has picked up the {svc} at {env} from {old}.", "New maintainer for the {env} {svc}: {v}, replacing {old}.",
               "{old} handed the {env} {svc} over to {v} and went across to the sewer side."],
    "correction": ["Correction: {v} maintains the {env} {svc}, not {old}.",
                   "Sorry, I meant {v} - {old} doesn't look after the {svc} at {env}."],
    "as_of": ["As of {date}, {v} maintains the {svc} at {env} WTP.", "Maintenance responsibilities {date_iso}: {env} {svc} - {v}",
              "{v} has had the {env} {svc} since {weekday}."],
    "distractor": ["{x} is filling in on the {env} {svc} this week while the usual fitter's on leave.",
                   "{x} came out to the {svc} at {env} for a one-off callout.", "Can {x} have a look at the {env} {svc} on Thursday?",
                   "{x} looks after the {svc} at the Junee plant, not {env}."],
    "q_current": ["Who maintains the {svc} at {env} WTP now?"],
    "q_as_of": ["Who maintained the {svc} at {env} WTP on {date}?"],
    "q_history": ["Who maintained the {svc} at {env} WTP before {v}?"],
}
T["service_agent"] = {
    "state": ["{v} hold the servicing contract for the {svc} at both Yarran plants.", "{svc} servicing: {v} (panel contract)",
              "Contract register\nCategory,Contractor\n{svc} servicing,{v}", "For the {svc}, it's {v} you call, whichever plant.",
              "{v} do all our {svc} servicing."],
    "change": ["The {svc} servicing contract has gone from {old} to {v}.", "{v} won the {svc} tender, {old} finish up this month.",
               "Subject: {svc} service contract\n\nAll,\n\nFollowing the RFQ, {v} are now our contractor for {svc} servicing at "
               "both plants, replacing {old}. Raise POs against the new contract number.\n\nProcurement"],
    "correction": ["Correction: {svc} servicing is with {v}, not {old}.", "Sorry, {v} have the {svc} contract - I wrote {old} by mistake."],
    "as_of": ["As of {date}, {v} service the {svc}.", "Contract register {date_iso}: {svc} - {v}",
              "{v} have been doing the {svc} since {weekday}."],
    "distractor": ["{x} quoted for the {svc} service but we didn't go with them.",
                   "Would {x} be any cheaper for the {svc}? Procurement want three quotes.",
                   "The shire next door uses {x} for their {svc}.", "{x} don't service our {svc}; they only did the install.",
                   "{x} sent a bloke out to the {svc} once when the usual mob couldn't make it."],
    "q_current": ["Which contractor services the {svc} now?"],
    "q_as_of": ["Which contractor serviced the {svc} on {date}?"],
    "q_history": ["Which contractor serviced the {svc} before {v}?"],
}
T["prestart"] = {
    "state": ["{team} do their prestart at the {v}.", "Prestart locations\n{team}: {v}", "Section,Prestart\n{team},{v}",
              "{team} prestart, 6:45, the {v}.", "If you need {team} first thing, they're at the {v} for prestart."],
    "change": ["{team} prestart has moved from the {old} to the {v}.",
               "{team} have shifted their prestart to the {v}; the {old} got too small.",
               "Subject: {team} prestart\n\nMorning all,\n\nFrom today our prestart is at the {v}, not the {old}. Same time, "
               "6:45.\n\n{team} Coordinator"],
    "correction": ["Correction: {team} prestart is at the {v}, not the {old}.",
                   "Ignore my last message, {team} meet at the {v}; the {old} is someone else's."],
    "as_of": ["As of {date}, {team} prestart is at the {v}.", "Prestart list {date_iso}: {team} - {v}",
              "{team} have been doing prestart at the {v} since {weekday}."],
    "distractor": ["{team} are doing tomorrow's prestart at the {x} because of the toolbox talk.",
                   "{team} would rather do prestart at the {x}, but there's no parking.",
                   "Are {team} doing prestart at the {x} now? I saw their utes there.",
                   "{team} don't meet at the {x}, that's the sewer crew."],
    "q_current": ["Where is {team} prestart held now?"],
    "q_as_of": ["Where was {team} prestart held on {date}?"],
    "q_history": ["Where was {team} prestart held before the {v}?"],
}
T["shutdown"] = {
    "state": ["The {p} shutdown is on {v}.", "Planned interruptions\n{v} - {p}",
              "Water interruption notice: {p}\nDate: {v}\nTime: 8am to 3pm", "Job,Shutdown date\n{p},{v}",
              "{p}: water off {v}, letterbox drop done."],
    "change": ["The {p} shutdown has moved from {old} to {v}.",
               "Shutdown rescheduled: {p}, now {v} (was {old}). New notices going out.",
               "Subject: {p} - revised shutdown\n\nHi all,\n\nThe contractor's asked to push the shutdown from {old} to {v} "
               "because of the pipe delivery. Customer Service, please update the website.\n\nCapital Delivery"],
    "correction": ["Correction: the {p} shutdown is {v}, not {old}.",
                   "Sorry, typo on the notice - the {p} is {v}; {old} was the provisional date."],
    "as_of": ["As of {date}, the {p} shutdown is planned for {v}.", "Interruptions register {date_iso}: {p} on {v}"],
    "q_current": ["When is the {p} shutdown now?"],
    "q_as_of": ["When was the {p} shutdown planned for, as known on {date}?"],
    "q_history": ["When was the {p} shutdown planned for before {v}?"],
}
T["contractor"] = {
    "state": ["{v} are the contractor on the {p}.", "{p} - principal contractor: {v}", "Job,Contractor\n{p},{v}",
              "Site sign on the {p} says {v}.", "{v} are doing the {p} for us."],
    "change": ["The {p} has gone from {old} to {v}.", "{old} have been terminated on the {p}; {v} are taking over the works.",
               "Contract novated: {p}, {old} -> {v}.",
               "Subject: {p}\n\nHi,\n\nAfter {old} went into administration, {v} have been engaged to finish the {p}. Site "
               "induction Monday.\n\nCapital Delivery"],
    "correction": ["Correction: the {p} contractor is {v}, not {old}.",
                   "Sorry, wrong mob - {v} are on the {p}; {old} are on the job next door."],
    "as_of": ["As of {date}, {v} are the contractor on the {p}.", "Contracts {date_iso}: {p} - {v}",
              "{v} have been on the {p} since {weekday}."],
    "distractor": ["{x} tendered for the {p} but came in too high.",
                   "Could {x} do the {p} if the current mob can't start? Just asking.",
                   "Is that {x}'s excavator on the {p} site?", "{x} are doing the job next to the {p}, not the {p} itself.",
                   "{x} supplied the pipe for the {p}, that's all."],
    "q_current": ["Which contractor is on the {p} now?"],
    "q_as_of": ["Which contractor was on the {p} on {date}?"],
    "q_history": ["Which contractor was on the {p} before {v}?"],
}
T["supt_rep"] = {
    "state": ["{v} is the superintendent's rep on the {p}.", "{p} - Supt Rep: {v}",
              "Project | Superintendent's Representative\n{p} | {v}", "Variations on the {p} go through {v}.",
              "Send the {p} progress claims to {v}."],
    "change": ["{v} has taken over the {p} from {old} as superintendent's rep.", "Supt Rep change on the {p}: {old} out, {v} in.",
               "Subject: {p} - Superintendent's Representative\n\nDear Contractor,\n\nPlease note that I have replaced {old} as "
               "Superintendent's Representative for the {p}. All notices and claims should now come to me.\n\nRegards,\n{v}\n"
               "Project Engineer"],
    "correction": ["Correction: {v} is the Supt Rep on the {p}, not {old}.", "Sorry, I meant {v} is running the {p} contract, not {old}."],
    "as_of": ["As of {date}, {v} is superintendent's rep on the {p}.", "Delegations {date_iso}: {p} - {v}",
              "{v} has been Supt Rep on the {p} since {weekday}."],
    "distractor": ["{x} is signing off the {p} claims this fortnight while the usual rep is on leave.",
                   "{x} would like to pick up the {p} if it gets extended.", "Is {x} the rep on the {p}? Their name's on the site diary.",
                   "{x} is the rep on the job after the {p}, not the {p} itself."],
    "q_current": ["Who is the superintendent's rep on the {p} now?"],
    "q_as_of": ["Who was the superintendent's rep on the {p} on {date}?"],
    "q_history": ["Who was the superintendent's rep on the {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A workforce system's worker record, a maintenance system's asset record, a procurement contract
    # search with a result list, an intranet section page and a capital works job record.
    "person": ("workforce.get_worker", {"worker": {"preferredName": "{s}", "classification": "Water Industry Operator"},
                                        "assignment": {"{key}": "{v}"}}),
    "deployment": ("cmms.get_asset", {"site": "{env} WTP", "asset": {"description": "{svc}", "{key}": "{v}"},
                                      "source": "CMMS"}),
    "service": ("procurement.contract_search", {"query": "{svc} servicing",
                                                "results": [{"category": "{svc}", "{key}": "{v}", "period": "current"}],
                                                "total": 1}),
    "team": ("intranet.section_page", {"section": "{team}", "details": {"{key}": "{v}"}}),
    "project": ("capworks.get_job", {"job": {"title": "{p}", "program": "capital works", "{key}": "{v}"}}),
}
TOOL_STAMP = ("queried_at", "%Y-%m-%d %H:%M:00 UTC")
JSON_KEYS = {"crew": "crew", "ute": "vehicle_fleet_no", "refresher": "cse_refresher_date", "water_plant": "nominated_wtp",
             "sewer_plant": "nominated_stp", "status": "asset_status", "plc_version": "plc_program_rev", "fitter": "maintainer",
             "service_agent": "supplier", "prestart": "prestart_location", "shutdown": "planned_shutdown",
             "contractor": "principal_contractor", "supt_rep": "superintendents_rep"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Burst main reported on {city} Rd, {name} is heading out now.",
        "Smoko's at {time}, someone bring the {food}.",
        "Reminder: {topic} on {weekday}, sign-in sheet's in the crib room.",
        "{name} found a brown snake in a valve pit out past {city}, keep an eye out.",
        "Customer in {city} complaining about dirty water again, job {n}{n2} raised.",
        "{name} is flat out with {n} meter reads left before {time}.",
        "Whoever took the good shovel off the back of the truck, {name} wants it back.",
        "Forecast for {city} today: {weather}. Pack a jacket.",
        "{name}'s last day before long service leave is {weekday}, pub after work.",
        "Payroll are chasing missing timesheets again, get them in by {time}.",
        "Bloke from {city} rang about his water bill again, {name} took the call.",
        "Christmas barbecue on {weekday}: {name} is doing the {food}.",
    ],
    "tool": [
        '{{"station": "{city}", "forecast": "{weather}", "max_temp": {n}}}',
        '{{"customer_request": {{"ref": "CRM-{n}{n2}", "suburb": "{city}", "type": "low pressure", "status": "open"}}}}',
        '{{"timesheet": {{"employee": "{name}", "day": "{weekday}", "hours": {n}}}}}',
        '{{"stores_issue": {{"item": "150mm repair clamp", "qty": {n}, "issued_to": "{name}"}}}}',
    ],
    "tool_names": ["bom.forecast", "crm.customer_requests", "payroll.timesheets", "stores.issues"],
}

REPORTERS = (("Kerrie", "user:kerrie.networkops"), ("Trent", "user:trent.treatment"), ("Bec", "user:bec.workforce"))
LOW_TRUST = (("document", "doc:sharepoint-export-2025"), ("document", "doc:operator-induction-manual.pdf"),
             ("peer", "agent:work-scheduler"))
