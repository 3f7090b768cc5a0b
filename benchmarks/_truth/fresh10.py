"""The twelfth template set, ``fresh10``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is the operations of a small Scottish hotel group, as the group operations office, a duty
manager or Group HR sees it. People are team members on the group's hospitality apprenticeship
with the property they are based at, a shift pattern, the date of their next appraisal and two
people who support them and are easily confused (the workplace buddy, a colleague, and the
assessor from the training provider: the look-alike pair, drawn from two pools of look-alike
names, "Gail Munro" beside "Gayle Munroe"). The "deployments" are guest outlets at the group's two
look-alike city-centre hotels (the spa at Castle Street and the one at Castle Quay) with a status
(the observation slot), opening hours and an outlet manager; the "service" of an outlet type is
the company that runs it as a concession across the group; teams are departments (Housekeeping,
Front Office) with a head of department; the "projects" are booked functions with look-alike
names by nature (the Holloway wedding beside the Galloway wedding, the Lamont 60th beside the
Lamont 50th) with an event date, a function room and an events coordinator.

Statements come as team members' first-person chat ("got my transfer!", "my buddy is … now"),
duty managers' and the ops office's third-person notes, staff lists, rota lines, CSV rows with a
header, pipe tables, "Key: value" cards and banqueting event orders (BEOs), e-mails with a
subject and a sign-off (a training provider's change-of-assessor letter, Group HR, Group
Procurement, a coordinator introducing themself to a client, the events office), duty log lines,
compendium revisions, corrections ("Correction: … not …", "Sorry, wrong room", "Typo in the
compendium", "Ignore the last staff list") and "as of"/"from"/"rev" forms. Dates are written
``4 March 2027`` and also ``04-MAR-27`` (PMS-style, duty logs and charts), ``04/03/2027`` (rotas,
trackers, registers), ``Thursday 4 March`` (briefings, no year) and "since Thursday". Tool results
are an HR record, an outlet status board, a contracts register lookup, an intranet org chart and a
BEO from the events diary. Distractors name the subject and another value without setting the
slot: a one-off (two nights' cover at another property, a week on another pattern, a one-off
observation by another assessor, a drinks reception in another room, weekend cover of an outlet),
a wish or a plan ("would love to go onto …", "the GM is thinking about it"), a pitch from another
company, a relative's, a client's or another hotel's value, questions and negations. Its random
stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh10-2026-12-07-blind-hotel-group"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("property", "shift_pattern", "appraisal", "buddy", "assessor"),
    "deployment": ("status", "opening_hours", "outlet_manager"),
    "service": ("concession",),
    "team": ("head",),
    "project": ("event_date", "function_room", "coordinator"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED: tuple[str, ...] = ()
"""Buddies, assessors, outlet managers, heads of department and events coordinators come from pools
of their own, not the world's people (who are the apprentices)."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"buddy": "assessor", "assessor": "buddy"}
"""A team member's buddy and assessor look alike ("Gail Munro" / "Gayle Munroe") but are not the same slot."""
VERSIONED: tuple[str, ...] = ()
DATED = ("appraisal", "event_date")
"""Attributes whose values are future dates: a team member's next appraisal, the day a function is booked for."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``4 March 2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_pms": date.strftime("%d-%b-%y").upper(), "date_slash": date.strftime("%d/%m/%Y"),
            "date_dayname": date.strftime("%A %-d %B"), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Rhys", "Reece"), ("Lucy", "Lucie"), ("Aisha", "Ayesha"), ("Bogdan", "Bohdan"), ("Ioana", "Ivana"),
                ("Callum", "Calum"), ("Kayleigh", "Kayley"), ("Andrei", "Andrej"), ("Oliwia", "Olivia"),
                ("Cristina", "Kristina"), ("Hollie", "Holly"), ("Mohammed", "Muhammad"), ("Bethan", "Bethany"),
                ("Marcin", "Marcel"), ("Jordan", "Jordon")),
    surnames=("Fairbairn", "Adeyemi", "Popescu", "Gallagher", "Lindsay", "Wozniak", "Tennant", "Mahmood"),
    cities=("Inverness", "Dundee", "Aberdeen", "Stirling", "Carlisle", "Newcastle", "Durham", "York",
            "Harrogate", "Kendal", "Ayr", "Falkirk", "Paisley", "Dumfries", "Berwick", "Oban"),
    employers=(),
    languages=(),
    roles=(),
    # Guest outlets that both city-centre hotels have.
    services=("restaurant", "lobby bar", "spa", "gym", "pool", "car park", "breakfast room", "roof terrace",
              "business centre", "concierge desk", "laundry room", "airport shuttle", "kids' club", "coffee shop",
              "cocktail lounge"),
    environments=("Castle Street", "Castle Quay"),
    service_statuses=("running normally", "shut for refurbishment", "on reduced hours", "residents only",
                      "closed until further notice"),
    regions=(),
    owner_teams=(),
    # Departments, named the way the hotels say them ("Housekeeping are short", "ring Front Office").
    teams=("Housekeeping", "Front Office", "Maintenance", "Conference & Events", "Reservations", "Food & Beverage",
           "Sales", "Night Audit", "Revenue", "Guest Relations", "HR", "Finance"),
    # Booked functions; neighbours look alike by nature.
    projects=("Holloway wedding", "Galloway wedding", "Tayside Dental conference", "Tayside Dairy conference",
              "Lamont 60th", "Lamont 50th", "Brechin Rotary dinner", "Brechin Round Table dinner",
              "Orrin Energy away day", "Orrin Engineering away day", "Highland Pipers ceilidh", "Highland Dancers ceilidh",
              "Fenwick silver wedding", "Fenton golden wedding", "Strathmore Law Society ball",
              "Strathmore Golf Club ball", "Ashgrove Primary quiz night", "Ashgrove Academy prom",
              "Morrison-Baird wedding", "Morrison-Bell wedding"),
    project_statuses=(),
    version_style="semver",
    date_format="%-d %B %Y",
    foods=("mince and tatties", "macaroni cheese", "stovies", "fish and chips", "chicken curry", "lentil soup"),
    topics=("the staff awards", "the uniform fittings", "the Christmas party", "the mystery shopper visit",
            "the allergen training", "the tronc meeting", "the car-share scheme", "the wellbeing survey"),
    pools=(
        ("property", ("Ardmore House", "the Drovers Inn", "Kelvin Lodge", "the Corn Exchange", "Glenbervie Hotel",
                      "the Waverley Arms", "Riverside Lodge", "Balgray Park Hotel", "the Old Post Office", "the Airport Inn")),
        ("shift_pattern", ("earlies", "lates", "nights", "split shifts", "4 on 4 off", "weekends only", "Mon-Fri days",
                           "the rotating rota")),
        # Buddies and assessors come from two disjoint pools of look-alike names.
        ("buddy", ("Gail Munro", "Stuart Kerr", "Ania Nowak", "Craig Baird", "Fiona Lennox", "Kwame Asante",
                   "Shona Rennie", "Ross McAllister", "Dorota Zielinska", "Euan Fraser")),
        ("assessor", ("Gayle Munroe", "Stewart Carr", "Anya Novak", "Greg Beard", "Fiona Lennon", "Kwame Ansah",
                      "Shona Rennison", "Ross MacAlister", "Dorota Zielinski", "Ewan Frazer")),
        ("opening_hours", ("7am-10pm", "6:30am-11pm", "24 hours", "10am-6pm", "noon-10pm", "8am-8pm", "6am-9pm",
                           "7am-midnight", "11am-11pm", "9am-5pm")),
        ("outlet_manager", ("Hamish Gow", "Lorraine Boyd", "Mateusz Kowal", "Catriona Shaw", "Jamal Idris", "Elaine Kirk",
                            "Paolo Ferri", "Morag Dunlop", "Tendai Moyo", "Lynsey Reid")),
        ("concession", ("Calder Leisure", "Parkhouse Services", "Northgate Facilities", "Tay Contract Services",
                        "Bluebell Hospitality", "Kestrel Partners", "Stanecastle Operations", "Linnhe Services",
                        "Ochil Leisure", "Brightwater Spa Co.")),
        ("head", ("Janice Rutherford", "Colin Meikle", "Agata Sobczak", "Neil Urquhart", "Sandra Coull", "Ibrahim Sesay",
                  "Pauline Gilchrist", "Gordon Tait", "Ruth Abernethy", "Dariusz Malek")),
        # Function rooms, said with "the" ("in the Orangery").
        ("function_room", ("Ballroom", "Orangery", "Library", "Long Gallery", "Garden Room", "Cellar Bar", "Boardroom",
                           "Harbour Suite", "Terrace Room", "Lomond Suite")),
        ("coordinator", ("Nicola Spence", "Grant Lumsden", "Yasmin Qureshi", "Iain Dalgleish", "Carla Menzies",
                         "Bartek Sowa", "Heather Lowrie", "Lewis Imrie", "Amara Okeke", "Joanne Rattray")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["property"] = {
    "state": ["{s} is based at {v}.", "Team member: {s}\nHome property: {v}", "Name,Property\n{s},{v}",
              "{s} works out of {v}, so book their training days through that GM.",
              "Staff list - {v}\n{s} (apprentice, front of house)",
              "Hi all,\n\nJust confirming {s} is one of ours at {v}, in case anyone was wondering about the uniform order.\n\nGM's office"],
    "change": ["{s} has transferred from {old} to {v}.", "Transfer confirmed: {s}, {old} -> {v}.",
               "Subject: Staff transfer - {s}\n\nHi all,\n\n{s} is moving across to {v} from {old}. Please set up their PMS "
               "login and locker at {v} and close down the {old} one.\n\nKind regards,\nGroup HR",
               "{s} has left {old} and started at {v} this week."],
    "first_state": ["I'm at {v}.", "im based at {v} if anyone needs cover", "I work at {v}, reception mostly."],
    "first_change": ["Got my transfer! I'm at {v} now, finished at {old} on Friday.", "moved to {v} now, no more {old} for me",
                     "Just so the rota people know, I've moved from {old} to {v}."],
    "correction": ["Correction: {s} is at {v}, not {old}.", "Sorry, I put {s} under {old} on the list - they're at {v}.",
                   "Ignore the last staff list, {s} is based at {v} ({old} was a typo)."],
    "as_of": ["As of {date}, {s} is based at {v}.", "Headcount {date_pms}: {s} - {v}", "{s} has been at {v} since {weekday}.",
              "From {date_dayname}, {s} works at {v}."],
    "distractor": ["{s} is covering two nights at {x} while they're short, then back to normal.",
                   "{s} has applied for the supervisor job at {x}; nothing decided yet.",
                   "Is {s} at {x} now? Their name was on the rota there.", "{s}'s boyfriend works at {x}.",
                   "{s} was never at {x}, HR have mixed them up with someone else."],
    "q_current": ["Which property is {s} based at now?"],
    "q_as_of": ["Which property was {s} based at on {date}?"],
    "q_history": ["Which property was {s} based at before {v}?"],
}
T["shift_pattern"] = {
    "state": ["{s} is on {v}.", "Rota pattern - {s}: {v}", "Name | Pattern\n{s} | {v}",
              "{s} works {v}, so don't put them down for anything else without asking.",
              "Contract summary\nEmployee: {s}\nShift pattern: {v}"],
    "change": ["{s} has gone from {old} to {v}.", "Pattern change for {s}: {v} (was {old}). Rota updated.",
               "{s} asked to come off {old}; they're on {v} now.",
               "Subject: Flexible working request - {s}\n\nHi,\n\nWe've agreed {s}'s request, so they move from {old} to {v}.\n\nThanks,\nHR"],
    "first_state": ["I'm on {v}.", "im on {v} so i cant do the training day sorry", "I do {v}, have done for ages."],
    "first_change": ["Finally off {old}! I'm on {v} now.", "switched to {v}, {old} was killing me",
                     "Just to let you know my pattern's changed, {v} instead of {old}."],
    "correction": ["Correction: {s} is on {v}, not {old}.", "My mistake on the rota - {s} works {v}, not {old}."],
    "as_of": ["As of {date}, {s} is on {v}.", "Rota from {date_slash}: {s} on {v}", "{s} has been on {v} since {weekday}."],
    "distractor": ["{s} is doing {x} just this week to cover a holiday.",
                   "{s} would love to go onto {x} once the kids are back at school.",
                   "Could {s} do {x} over the festive period? We're desperate.", "{s}'s flatmate is on {x} at the same hotel.",
                   "{s} is not on {x}, whatever the printout in the back office says."],
    "q_current": ["What shift pattern is {s} on now?"],
    "q_as_of": ["What shift pattern did {s} work on {date}?"],
    "q_history": ["What shift pattern was {s} on before {v}?"],
}
T["appraisal"] = {
    "state": ["{s}'s appraisal is booked for {v}.", "Appraisals\n{s} - {v}", "{s}: next review {v}",
              "{s} has their annual review on {v}, with their head of department."],
    "change": ["{s}'s appraisal has moved from {old} to {v}.", "Review rescheduled: {s}, now {v} (was {old}).",
               "Subject: Appraisal - {s}\n\nHi,\n\nSorry, the GM can't do {old} any more. We've rebooked {s} for {v}.\n\nHR Admin"],
    "first_state": ["My appraisal's on {v}.", "got my review on {v}, wish me luck",
                    "I've got my appraisal {v}, can someone cover the desk that morning?"],
    "first_change": ["My appraisal's been moved to {v}, it was meant to be {old}.", "review moved again lol, {v} now not {old}"],
    "correction": ["Correction: {s}'s appraisal is {v}, not {old}.",
                   "Sorry, wrong date in the tracker - {s} is booked for {v}; {old} was someone else's."],
    "as_of": ["As of {date}, {s}'s appraisal is booked for {v}.", "Appraisal tracker {date_slash}: {s} - {v}"],
    "q_current": ["When is {s}'s appraisal now?"],
    "q_as_of": ["When was {s}'s appraisal booked for, as known on {date}?"],
    "q_history": ["When was {s}'s appraisal booked for before {v}?"],
}
T["buddy"] = {
    "state": ["{s}'s buddy is {v}.", "{v} is buddying {s}.", "Buddy list\n{s} - {v}", "New starter,Buddy\n{s},{v}",
              "If {s} has any questions about the tills, ask {v}, that's their buddy."],
    "change": ["{s} has a new buddy, {v}, since {old} has left.", "Buddy swap for {s}: {old} -> {v}.",
               "{v} is taking over as {s}'s buddy from {old}, who's going on maternity leave."],
    "first_state": ["My buddy is {v}.", "{v}'s my buddy, they've been great",
                    "I shadow {v}, they're my buddy for the first few months."],
    "first_change": ["I've got a new buddy, {v}. {old} has moved to another property.", "my buddy is {v} now not {old}"],
    "correction": ["Correction: {s}'s buddy is {v}, not {old}.", "Sorry, got the names mixed up - {v} buddies {s}, not {old}."],
    "as_of": ["As of {date}, {v} is {s}'s buddy.", "Buddy list {date_pms}: {s} / {v}", "{v} has been buddying {s} since {weekday}."],
    "distractor": ["{x} showed {s} the cash-up tonight because their buddy was off.",
                   "{s} has asked for {x} as a buddy if there's ever a change.",
                   "Is {x} {s}'s buddy? They're always on their breaks together.", "{x} is {s}'s cousin, that's all.",
                   "{x} isn't buddying {s}, they just share a locker."],
    "q_current": ["Who is {s}'s buddy now?"],
    "q_as_of": ["Who was {s}'s buddy on {date}?"],
    "q_history": ["Who was {s}'s buddy before {v}?"],
}
T["assessor"] = {
    "state": ["{s}'s assessor is {v}.", "{v} from Tayforth College assesses {s}.",
              "Apprentice: {s}\nTraining provider: Tayforth College\nAssessor: {v}", "Apprentice | Assessor\n{s} | {v}",
              "{v} is in on Thursday to observe {s} - they're {s}'s assessor."],
    "change": ["{s} has been given a new assessor: {v}, replacing {old}.",
               "Subject: Change of assessor - {s}\n\nDear Employer,\n\nPlease note that {v} will be {s}'s assessor from now "
               "on. {old} has moved to a different caseload.\n\nRegards,\nTayforth College Apprenticeships Team",
               "The college say {old} has handed {s} over to {v}."],
    "first_state": ["My assessor's {v}.", "{v} is my assessor, they're coming in Tuesday",
                    "I've got {v} as my assessor for the apprenticeship."],
    "first_change": ["New assessor for me, {v} - {old} has left the college.", "my assessor changed to {v}, not {old} any more"],
    "correction": ["Correction: {s}'s assessor is {v}, not {old}.", "Sorry, I mixed up the college names - {s} has {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s assessor is {v}.", "College caseload {date_slash}: {s} assessed by {v}",
              "{v} has been assessing {s} since {weekday}."],
    "distractor": ["{x} did {s}'s observation this once, their usual assessor was ill.",
                   "{x} might take {s} on when the new cohort starts.", "Is {x} {s}'s assessor? They emailed about a portfolio.",
                   "{x} assesses {s}'s brother on the chef course.",
                   "{x} is not {s}'s assessor, whatever the old portfolio cover says."],
    "q_current": ["Who is {s}'s assessor now?"],
    "q_as_of": ["Who was {s}'s assessor on {date}?"],
    "q_history": ["Who was {s}'s assessor before {v}?"],
}
T["status"] = {
    "state": ["The {svc} at {env} is {v}.", "{env} | {svc} | {v}", "Outlet status, {env}: {svc} - {v}",
              "Walked past the {svc} at {env}, it's {v}.", '{{"property": "{env}", "outlet": "{svc}", "state": "{v}"}}'],
    "change": ["The {svc} at {env} has gone from {old} to {v}.", "Duty log {env}: {svc} now {v} (was {old}).",
               "Update from {env}: the {svc} is {v} as of this morning.",
               "Subject: {env} - {svc}\n\nHi all,\n\nPlease tell guests the {svc} is now {v}. It was {old} until today.\n\nDuty Manager"],
    "correction": ["Correction: the {svc} at {env} is {v}, not {old} - I was looking at the other hotel.",
                   "Sorry, my mistake, {env}'s {svc} is {v}, not {old}."],
    "as_of": ["As of {date} the {svc} at {env} is {v}.", "{date_pms} {env} {svc}: {v}",
              "The {svc} at {env} has been {v} since {weekday}.", "Morning briefing, {date_dayname} - {env}: {svc} {v}"],
    "distractor": ["If the {svc} at {env} ends up {x}, we'll send guests across the road.",
                   "Is the {svc} at {env} {x}? A guest says so in a review.",
                   "The {svc} at the Perth hotel is {x}, not the {env} one.",
                   "A guest asked if the {svc} at {env} was {x}; told them I'd check with the duty manager."],
    "q_current": ["What is the status of the {svc} at {env} now?"],
    "q_as_of": ["What was the status of the {svc} at {env} on {date}?"],
    "q_history": ["What was the status of the {svc} at {env} before it was {v}?"],
}
T["opening_hours"] = {
    "state": ["The {svc} at {env} is open {v}.", "Opening times - {env} {svc}: {v}", "Property,Outlet,Hours\n{env},{svc},{v}",
              "Guest directory, {env}\n{svc}: {v}", "Tell guests the {env} {svc} hours are {v}."],
    "change": ["The {svc} at {env} has changed its hours from {old} to {v}.",
               "New hours for the {svc} at {env}: {v} (previously {old}).",
               "Subject: {env} {svc} hours\n\nHi team,\n\nFrom today the {svc} is open {v}, not {old}. Please update the room "
               "compendium and the website.\n\nThanks,\nFront Office Manager"],
    "correction": ["Correction: the {env} {svc} is open {v}, not {old}.", "Typo in the compendium - {env} {svc} hours are {v}, not {old}."],
    "as_of": ["As of {date}, the {svc} at {env} is open {v}.", "Compendium rev {date_slash}: {env} {svc} {v}",
              "From {date_dayname} the {env} {svc} is open {v}."],
    "distractor": ["The {svc} at {env} is staying open {x} just for the Hogmanay weekend.",
                   "Could we try {x} for the {env} {svc}? The GM is thinking about it.",
                   "Is the {svc} at {env} open {x}? The website says so.",
                   "The {svc} at the Perth hotel is {x}; {env}'s is different."],
    "q_current": ["What are the opening hours of the {svc} at {env} now?"],
    "q_as_of": ["What were the opening hours of the {svc} at {env} on {date}?"],
    "q_history": ["What were the opening hours of the {svc} at {env} before {v}?"],
}
T["outlet_manager"] = {
    "state": ["{v} manages the {svc} at {env}.", "{env} {svc} - manager: {v}",
              "Outlet managers\nProperty,Outlet,Manager\n{env},{svc},{v}",
              "Any complaints about the {env} {svc}, go to {v}, it's their outlet."],
    "change": ["{v} has taken over the {svc} at {env} from {old}.", "New manager at the {env} {svc}: {v}, replacing {old}.",
               "{old} has handed the {env} {svc} over to {v} and gone to head office."],
    "correction": ["Correction: {v} runs the {env} {svc}, not {old}.", "Sorry, I meant {v} - {old} doesn't manage the {svc} at {env}."],
    "as_of": ["As of {date}, {v} manages the {svc} at {env}.", "Management chart {date_pms}: {env} {svc} - {v}",
              "{v} has been running the {env} {svc} since {weekday}."],
    "distractor": ["{x} is looking after the {env} {svc} this weekend while the manager's on holiday.",
                   "{x} is shadowing at the {svc} at {env} for a fortnight.", "Can {x} cover the {env} {svc} on Sunday?",
                   "{x} manages the {svc} at the Perth hotel, not at {env}."],
    "q_current": ["Who manages the {svc} at {env} now?"],
    "q_as_of": ["Who managed the {svc} at {env} on {date}?"],
    "q_history": ["Who managed the {svc} at {env} before {v}?"],
}
T["concession"] = {
    "state": ["The {svc} contract across the group is with {v}.", "{svc}: operated by {v} (group contract)",
              "Supplier register\nOutlet,Operator\n{svc},{v}", "Anything to do with the {svc}, at either Castle hotel, it's {v} you ring.",
              "The {svc} is a concession - {v} run it for us."],
    "change": ["The {svc} concession has moved from {old} to {v}.",
               "Group have re-tendered the {svc}: {v} have won it and {old} are finished.",
               "Subject: {svc} operator\n\nDear GMs,\n\nFollowing the tender, {v} now operate the {svc} at both Castle hotels "
               "in place of {old}.\n\nGroup Procurement"],
    "correction": ["Correction: the {svc} is run by {v}, not {old}.", "Sorry, {v} have the {svc} contract; I wrote {old} by mistake."],
    "as_of": ["As of {date}, the {svc} is operated by {v}.", "Contracts register {date_slash}: {svc} - {v}",
              "{v} have been running the {svc} since {weekday}."],
    "distractor": ["{x} pitched for the {svc} contract, nothing agreed.", "Would {x} do the {svc} cheaper? Procurement are asking.",
                   "The hotel down the road uses {x} for its {svc}.", "{x} don't run the {svc}; they only do our window cleaning.",
                   "{x} sent a relief team to the {svc} for one weekend."],
    "q_current": ["Which company runs the {svc} now?"],
    "q_as_of": ["Which company ran the {svc} on {date}?"],
    "q_history": ["Which company ran the {svc} before {v}?"],
}
T["head"] = {
    "state": ["{v} is head of {team}.", "Head of {team}: {v}", "Department,Head\n{team},{v}",
              "Anything for {team}, speak to {v} first.", "{team} is {v}'s department."],
    "change": ["{v} has taken over {team} from {old}.", "New head of {team}: {v}. {old} left on Friday.",
               "Hi all,\n\nPlease welcome {v} as our new head of {team}. {old} has moved on to pastures new - we wish them "
               "well.\n\nGroup Ops"],
    "correction": ["Correction: {team} is headed by {v}, not {old}.", "Ignore what I said, {v} is head of {team}; {old} is the deputy."],
    "as_of": ["As of {date}, {v} is head of {team}.", "Org chart {date_pms}: {team} - {v}", "{v} has been running {team} since {weekday}."],
    "distractor": ["{x} is acting head of {team} for the week while the head is on leave.",
                   "{x} has applied for head of {team} at the airport hotel.", "Is {x} head of {team} now? They signed the rota.",
                   "{x} heads {team} at the Perth hotel, not ours."],
    "q_current": ["Who is head of {team} now?"],
    "q_as_of": ["Who was head of {team} on {date}?"],
    "q_history": ["Who was head of {team} before {v}?"],
}
T["event_date"] = {
    "state": ["The {p} is on {v}.", "Function diary\n{v} - {p}", "BEO: {p}\nDate: {v}\nStatus: definite", "Event,Date\n{p},{v}",
              "{p}: booked for {v}."],
    "change": ["The {p} has moved from {old} to {v}.", "Date change: {p}, now {v} (was {old}). Deposit carried over.",
               "Subject: {p} - new date\n\nHi,\n\nThe client has asked to move from {old} to {v} and we've confirmed. Updated "
               "BEO to follow.\n\nEvents Office"],
    "correction": ["Correction: the {p} is {v}, not {old}.", "Sorry, typo on the BEO - {p} is on {v}; {old} was the provisional date."],
    "as_of": ["As of {date}, the {p} is booked for {v}.", "Function diary {date_pms}: {p} on {v}"],
    "q_current": ["When is the {p} now?"],
    "q_as_of": ["When was the {p} booked for, as known on {date}?"],
    "q_history": ["When was the {p} booked for before {v}?"],
}
T["function_room"] = {
    "state": ["The {p} is in the {v}.", "{p} - room: {v}", "BEO: {p}\nRoom: {v}\nSet-up: rounds of 10", "Function,Room\n{p},{v}",
              "We've got the {p} in the {v}."],
    "change": ["The {p} has moved from the {old} to the {v}.",
               "Numbers are up for the {p}, so it's going into the {v} instead of the {old}.", "Room change: {p}, {old} -> {v}."],
    "correction": ["Correction: the {p} is in the {v}, not the {old}.",
                   "Sorry, wrong room - the {p} is in the {v}; the {old} is a different booking."],
    "as_of": ["As of {date}, the {p} is in the {v}.", "Room allocation {date_slash}: {p} - {v}",
              "The {p} has been down for the {v} since {weekday}."],
    "distractor": ["The {p} drinks reception is in the {x}, the meal is elsewhere.",
                   "The {p} client asked about the {x}; we said we'd let them know.",
                   "Is the {p} in the {x}? There's a room plan on the printer.",
                   "The {p} client's sister had her wedding in the {x}.", "The {p} isn't in the {x}, that's the ceilidh next door."],
    "q_current": ["Which room is the {p} in now?"],
    "q_as_of": ["Which room was the {p} in on {date}?"],
    "q_history": ["Which room was the {p} in before the {v}?"],
}
T["coordinator"] = {
    "state": ["{v} is coordinating the {p}.", "{p} - coordinator: {v}", "Event | Coordinator\n{p} | {v}",
              "The {p} is {v}'s, send client emails to them."],
    "change": ["{v} has taken over the {p} from {old}.", "Coordinator change for the {p}: {old} out, {v} in.",
               "Subject: {p}\n\nDear client,\n\nI'm writing to introduce myself: I'll be looking after your event from now on, "
               "as {old} has moved to our sister hotel.\n\nWarm regards,\n{v}\nEvents Coordinator"],
    "correction": ["Correction: the {p} is {v}'s, not {old}'s.", "Sorry, I meant {v} is on the {p}, not {old}."],
    "as_of": ["As of {date}, {v} is coordinating the {p}.", "Events allocation {date_pms}: {p} - {v}",
              "{v} has had the {p} since {weekday}."],
    "distractor": ["{x} is doing the {p} show-round on Saturday as a favour.",
                   "{x} would like to take on the {p} if it gets any bigger.", "Is {x} on the {p}? Their initials are on the BEO.",
                   "{x} is coordinating the wedding the day after the {p}, not the {p} itself."],
    "q_current": ["Who is coordinating the {p} now?"],
    "q_as_of": ["Who was coordinating the {p} on {date}?"],
    "q_history": ["Who was coordinating the {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # An HR record, an outlet status board, a contracts register lookup, an intranet org chart and
    # a banqueting event order from the events diary.
    "person": ("people.hr_record", {"employee": {"name": "{s}", "contract": "apprentice"}, "details": {"{key}": "{v}"}}),
    "deployment": ("opsboard.outlets", {"property": "{env}", "outlets": [{"outlet": "{svc}", "{key}": "{v}"}],
                                        "posted_by": "duty manager"}),
    "service": ("contracts.lookup", {"category": "{svc}", "scope": "group", "contract": {"{key}": "{v}", "state": "live"}}),
    "team": ("intranet.org_chart", {"department": "{team}", "{key}": "{v}"}),
    "project": ("eventsdiary.beo", {"beo": {"function": "{p}", "status": "definite", "{key}": "{v}"}}),
}
TOOL_STAMP = ("updated", "%d-%b-%Y %H:%M")
JSON_KEYS = {"property": "home_property", "shift_pattern": "shift_pattern", "appraisal": "next_appraisal", "buddy": "buddy",
             "assessor": "assessor", "status": "status", "opening_hours": "hours", "outlet_manager": "outlet_manager",
             "concession": "operator", "head": "head_of_department", "event_date": "event_date", "function_room": "room",
             "coordinator": "coordinator"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Staff canteen is {food} today, from {time}.",
        "{name} has a coach party from {city} checking in at {time}.",
        "Reminder: {topic} on {weekday}, please sign the sheet.",
        "Room {n}{n2} needs a new kettle, can someone from maintenance pop up?",
        "Lost property: a grey scarf handed in by {name}, it's in the back office.",
        "We're {n} rooms behind on checks, {name} needs a hand before {time}.",
        "{name} got a lovely mention in a review from a guest from {city}!",
        "Fire alarm test {weekday} at {time}, warn the guests at check-in.",
        "Weather for the golf party tomorrow: {weather}.",
        "Who's got the key for the linen cupboard? {name} is looking for it.",
        "{n} arrivals still to come, the last one has an ETA of {time}.",
        "Can everyone please clock out properly, payroll found {n} missing punches last week.",
    ],
    "tool": [
        '{{"occupancy": {{"day": "{weekday}", "rooms_sold": {n2}, "arrivals": {n}}}}}',
        '{{"location": "{city}", "forecast": "{weather}", "wind_mph": {n}}}',
        '{{"lost_property": {{"item_no": "LP{n}{n2}", "found_by": "{name}", "state": "logged"}}}}',
        '{{"staff_meal": {{"day": "{weekday}", "main": "{food}", "served_from": "{time}"}}}}',
    ],
    "tool_names": ["pms.occupancy_forecast", "weather.outlook", "lostproperty.log", "canteen.menu"],
}

REPORTERS = (("Morven", "user:morven.groupops"), ("Declan", "user:declan.dutymanager"), ("Sunita", "user:sunita.grouphr"))
LOW_TRUST = (("document", "doc:group-intranet-export"), ("document", "doc:staff-handbook-2025.pdf"),
             ("peer", "agent:rota-assistant"))
