"""The eleventh template set, ``fresh9``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is the production office of a long-running TV soap shot at a studio site, as the
production coordinator's, the 2nd AD's or the kit room manager's assistant sees it. People are cast
members with a dressing room, an agent (the agency that represents them), the date their contract
runs to, and two people who substitute for them and are easily confused (the stand-in, who stands
on the marks while the lighting is set, and the stunt double: the look-alike pair, drawn from two
pools of look-alike names, "Kelly Ashworth" beside "Kelly Ashford"). The "deployments" are
production kit on the two look-alike stages of the site (the jib on Stage 3 and the one on
Stage 4) with a status (the observation slot), the standing set it is rigged on and the crew
member who operates it; the "service" of a kit type is the hire company it comes from; teams are
production departments (Costume, Sparks, Post) with the portakabin or room they are based in; the
"projects" are numbered episodes (look-alike by nature: 2141 beside 2142) with a director, a
transmission (TX) date and the edit suite they are cut in.

Statements come as cast members' first-person chat ("they've moved me into …", "my double is …
now"), coordinators' and ADs' third-person notes, runners' sheets, call-sheet notes, CSV rows with a
header (values quoted when they hold a comma), pipe tables, "Key: value" cards, e-mails with a
subject and a sign-off (an agency's change-of-representation letter, Business Affairs, the
production accountant, scheduling), kit room log and job lines, facilities requests, rigging
plans, corrections ("Correction: … not …", "Sorry, wrong set", "Typo on the contact sheet", "Ignore
the last runners' sheet") and "as of"/"from"/"rev" forms. Dates are written ``Thu 4 Mar 2027`` and
also ``Thursday 4th March 2027`` (call sheets), ``2027-03-04``, ``04.03.27`` (plans and lists) and
"since Thursday". Tool results are a spreadsheet-database record with capitalised field names, a
kit tracking scan, a purchase-order search, a studio map lookup and an episode scheduling record.
Distractors name the subject and another value without setting the slot: a one-off (a costume
fitting in another room, one scene's stand-in, a stand-by operator for one take, a kit item moved
for a single scene), a wish or a plan ("would love to", "might move next series"), a quote from
another hire company, a co-star's or relative's value, questions and negations. Its random stream
is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh9-2026-12-06-blind-tv-production"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("dressing_room", "agent", "contract_end", "stand_in", "stunt_double"),
    "deployment": ("status", "rig_position", "operator"),
    "service": ("hire_company",),
    "team": ("base",),
    "project": ("director", "tx_date", "edit_suite"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED: tuple[str, ...] = ()
"""Stand-ins, stunt doubles, kit operators and directors are crew from pools of their own, not the
world's people (who are the cast)."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"stand_in": "stunt_double", "stunt_double": "stand_in"}
"""A cast member's stand-in and stunt double look alike ("Kelly Ashworth" / "Kelly Ashford") but are not the same slot."""
VERSIONED: tuple[str, ...] = ()
DATED = ("contract_end", "tx_date")
"""Attributes whose values are future dates: the day a cast contract runs to, an episode's transmission date."""


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 11 <= day % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``Thu 4 Mar 2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_dots": date.strftime("%d.%m.%y"),
            "date_long": f"{date.strftime('%A')} {_ordinal(date.day)} {date.strftime('%B %Y')}", "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Leanne", "Lianne"), ("Shane", "Shayne"), ("Natalie", "Nathalie"), ("Joely", "Jolie"), ("Corinne", "Corrine"),
                ("Zainab", "Zaynab"), ("Dominic", "Dominik"), ("Roisin", "Rosheen"), ("Aidan", "Aiden"), ("Jade", "Jada"),
                ("Kirsty", "Kirstie"), ("Darren", "Daren"), ("Fern", "Ferne"), ("Amir", "Ameer"), ("Stephen", "Steven")),
    surnames=("Haworth", "Nwosu", "Kaczmarek", "Threlfall", "Siddiqui", "Ormerod", "Quayle", "Bancroft"),
    cities=("Warrington", "Rochdale", "Wakefield", "Huddersfield", "Runcorn", "Oldham", "Stockport", "Bury",
            "Halifax", "Widnes", "Crewe", "Northwich", "Skipton", "Leigh", "Ormskirk", "Chorley"),
    employers=(),
    languages=(),
    roles=(),
    services=("pedestal camera", "jib", "track and dolly", "Steadicam rig", "boom pole", "radio mic rack", "LED panel",
              "haze machine", "rain bar", "wind machine", "playback monitor", "follow spot", "camera crane", "autocue",
              "dimmer rack"),
    environments=("Stage 3", "Stage 4"),
    service_statuses=("good to go", "playing up", "off for repair", "wrapped and stored", "on standby"),
    regions=(),
    owner_teams=(),
    # Named the way the studio says them ("Costume are in …", "ring Sparks"), without an article.
    teams=("Costume", "Make-up", "Props", "Design", "Locations", "Sound", "Sparks", "Grips", "Post", "Casting",
           "Scripts", "Publicity"),
    # Numbered episodes of the soap; neighbouring numbers look alike.
    projects=("2141", "2142", "2143", "2144", "2145", "2146", "2147", "2148", "2151", "2152",
              "2153", "2154", "2157", "2158", "2160", "2161", "2164", "2165", "2168", "2169"),
    project_statuses=(),
    version_style="semver",
    date_format="%a %-d %b %Y",
    foods=("bacon butties", "cottage pie", "jacket spuds", "chip butties", "Thai green curry", "bread and butter pudding"),
    topics=("the read-through", "the health and safety briefing", "the wrap party", "the press day",
            "the costume sale", "the charity football match", "the intimacy workshop", "the new call sheet app"),
    pools=(
        ("dressing_room", ("Dressing Room 2", "Dressing Room 5", "Dressing Room 8", "Dressing Room 11", "Dressing Room 14",
                           "Dressing Room 17", "Dressing Room 20", "Cast Block room 6", "Cast Block room 9", "Artist Trailer 3")),
        ("agent", ("Hartley Finch Associates", "Marlowe Keane Management", "The Pemberton Agency", "Sable & Quince",
                   "Northern Lights Talent", "Greystoke Artists", "Ainsworth Rudd", "Mercer Vane Associates", "Carrow Talent",
                   "Blue Door Management")),
        # Stand-ins and stunt doubles come from two disjoint pools of look-alike names.
        ("stand_in", ("Kelly Ashworth", "Dean Molloy", "Poppy Lakhani", "Stacey Boyle", "Ryan Hegarty", "Gemma Costello",
                      "Lee Brannan", "Naomi Farouk", "Jason Tiernan", "Becky Pearce")),
        ("stunt_double", ("Kelly Ashford", "Dean Mulloy", "Poppy Lalwani", "Stacey Doyle", "Ryan Hagerty", "Gemma Castello",
                          "Lee Branagan", "Naomi Farooq", "Jason Tierney", "Becky Pearson")),
        # Standing sets on the stages (the kit is rigged "on the ... set").
        ("rig_position", ("Rose & Crown bar", "launderette", "Khan kitchen", "hospital corridor", "bus shelter", "salon",
                          "police station front desk", "Bradshaws' living room", "café", "registry office")),
        ("operator", ("Gareth Pilling", "Mo Rahman", "Siobhan Kerr", "Wojtek Wrona", "Bex Hargreaves", "Andy Lomax",
                      "Deepa Sharma", "Craig Whitworth", "Lou Entwistle", "Kofi Boateng")),
        ("hire_company", ("Brightside Camera Hire", "Northlight Rentals", "Kinetic Grip Hire", "Lumen Lane Lighting",
                          "Soundstage Supplies", "Red Brick Facilities", "Pennine Film Services", "Castlegate Rentals")),
        ("base", ("Portakabin 2", "Portakabin 7", "Portakabin 11", "Unit 12", "Unit 14", "the Mill building, first floor",
                  "the old canteen", "Block B, room 4", "the mezzanine over the scene dock")),
        ("director", ("Miriam Okoro", "Jonty Fairclough", "Sinead Cassidy", "Paul Ashdown", "Ravinder Gill", "Tess Maguire",
                      "Owen Llewellyn", "Hana Novotna", "Glen Abbott", "Catrin Rees")),
        ("edit_suite", ("Edit 1", "Edit 2", "Edit 3", "Edit 4", "Edit 5", "Edit 6", "Offline 2", "Offline 3", "Remote Avid 1")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["dressing_room"] = {
    "state": ["{s} is in {v}.", "Dressing rooms this block\n{v} - {s}", "Artist,Dressing room\n{s},{v}",
              "{s}'s dressing room is {v}; their name's on the door.", "Runner note: {s} - {v}, scripts left on the side.",
              "Hi all,\n\nFor anyone dropping scripts or costume off, {s} is in {v} this block.\n\nThanks,\nProduction Office"],
    "change": ["{s} has moved out of {old} and into {v}.", "Dressing room swap: {s} out of {old}, into {v}.",
               "{s}'s things have been moved over to {v}; {old} is being redecorated.",
               "Facilities request: move {s} from {old} to {v}. Status: done.",
               "Subject: Dressing room changes\n\nHi all,\n\n{s} is now in {v} (previously {old}). Please update the runners' sheet.\n\nProduction Office"],
    "first_state": ["I'm in {v}.", "my dressing room's {v} if anyone's looking for me", "Come and find me in {v}, I'll be there till my call."],
    "first_change": ["They've moved me into {v}! Bye bye {old}.", "im in {v} now not {old}, tell the runners pls",
                     "New dressing room for me: {v}. {old} had no window."],
    "correction": ["Correction: {s} is in {v}, not {old}.", "Sorry, wrong room on the sheet - {s} is in {v}; {old} is empty now.",
                   "Ignore the last runners' sheet: {s}'s room is {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s dressing room is {v}.", "Dressing room list {date_dots}: {s} in {v}", "{s} has been in {v} since {weekday}."],
    "distractor": ["{s} is using {x} for a costume fitting this afternoon, that's all.", "{s} asked if they could have {x} when it frees up.",
                   "Is {s} in {x}? There's a script with their name on it in there.", "{s}'s on-screen daughter has {x}.",
                   "{s} isn't in {x}, that's the supporting artists' room."],
    "q_current": ["Which dressing room is {s} in now?"],
    "q_as_of": ["Which dressing room was {s} in on {date}?"],
    "q_history": ["Which dressing room was {s} in before {v}?"],
}
T["agent"] = {
    "state": ["{s} is represented by {v}.", "{s}'s agent is {v}.", "Artist | Agent\n{s} | {v}",
              "For {s}'s availability, go through {v}.", "Cast contacts\nName: {s}\nRepresentation: {v}"],
    "change": ["{s} has left {old} and signed with {v}.", "{s} has new representation: {v} (was {old}).",
               "Subject: {s} - change of agent\n\nDear Production,\n\nPlease note that we now represent {s}. All contract queries "
               "should come to us rather than {old}.\n\nKind regards,\n{v}",
               "Casting say {s} has moved agencies, {old} to {v}; update the contact sheet."],
    "first_state": ["I'm with {v}.", "my agent's at {v}, talk to them about dates", "{v} look after me, so send any offers their way."],
    "first_change": ["I've signed with {v}! Left {old} last week.", "new agent: {v}. {old} is no longer repping me",
                     "Just so production knows, I'm with {v} now rather than {old}."],
    "correction": ["Correction: {s} is with {v}, not {old}.", "Sorry, I had {s} down as {old} - it's {v}.",
                   "Typo on the contact sheet: {s}'s agency is {v}, not {old}."],
    "as_of": ["As of {date}, {s} is represented by {v}.", "Contact sheet rev {date_iso}: {s} - agent {v}",
              "From {date_long}, all enquiries for {s} to {v}."],
    "distractor": ["{x} asked about {s} for a panto, nothing's been signed.", "{s} had a meeting with {x} but is staying put.",
                   "Does {x} look after {s}? Someone in casting thought so.", "{s}'s sister is with {x}.",
                   "{x} don't represent {s}; they have the actor who plays their brother."],
    "q_current": ["Who is {s}'s agent now?"],
    "q_as_of": ["Who was {s}'s agent on {date}?"],
    "q_history": ["Who was {s}'s agent before {v}?"],
}
T["contract_end"] = {
    "state": ["{s}'s contract runs until {v}.", "{s} is contracted to {v}.", "Artist contracts\n{s}: ends {v}",
              "{s} - contract end {v}", "{s} is on the show until at least {v}."],
    "change": ["{s}'s contract has been extended from {old} to {v}.", "Good news: {s} has been renewed, new end date {v} (was {old}).",
               "Subject: Contract extension - {s}\n\nHi,\n\nWe've agreed terms: {s}'s contract now runs to {v} instead of {old}.\n\nBest,\nBusiness Affairs"],
    "first_state": ["My contract runs to {v}.", "im contracted till {v}", "I'm on the show until {v}, then we'll see."],
    "first_change": ["They've extended me to {v}! I was meant to finish on {old}.", "contract extended, {v} now instead of {old}",
                     "Signed the extension today: I'm here till {v}, not {old}."],
    "correction": ["Correction: {s}'s contract ends {v}, not {old}.", "Sorry, {old} was the old end date - {s} is contracted to {v}."],
    "as_of": ["As of {date}, {s}'s contract runs until {v}.", "Business Affairs {date_iso}: {s} contract end {v}"],
    "q_current": ["When does {s}'s contract end now?"],
    "q_as_of": ["When was {s}'s contract due to end, as known on {date}?"],
    "q_history": ["When was {s}'s contract due to end before {v}?"],
}
T["stand_in"] = {
    "state": ["{s}'s stand-in is {v}.", "{v} stands in for {s}.", "Stand-ins\n{s}: {v}", "Artist,Stand-in\n{s},{v}",
              "{v} does {s}'s stand-in work, so ask for them when lighting the scene.", "Call sheet notes: SI for {s} - {v}"],
    "change": ["{s} has a new stand-in: {v}, replacing {old}.", "Stand-in change for {s}: {old} out, {v} in.",
               "{old} has finished as {s}'s stand-in; {v} has taken over."],
    "first_state": ["My stand-in is {v}.", "{v} stands in for me, they're brilliant",
                    "If you need someone for the lighting setup, {v} is my stand-in."],
    "first_change": ["I've got a new stand-in, {v}. {old} has gone to another show.", "my stand in is {v} now, not {old}",
                     "Say hi to {v}, my new stand-in ({old} left on Friday)."],
    "correction": ["Correction: {s}'s stand-in is {v}, not {old}.", "Sorry, mixed them up - {v} stands in for {s}, not {old}."],
    "as_of": ["As of {date}, {v} is {s}'s stand-in.", "SA booking {date_dots}: stand-in for {s} = {v}",
              "{v} has been standing in for {s} since {weekday}."],
    "distractor": ["{x} stood in for {s} for one scene when the usual one was off sick.",
                   "{x} would love to be {s}'s stand-in if it ever comes up.", "Is {x} {s}'s stand-in? They're always on set together.",
                   "{x} is the same height as {s}, which is why people mix them up.",
                   "{x} isn't {s}'s stand-in; they're a supporting artist in the pub."],
    "q_current": ["Who is {s}'s stand-in now?"],
    "q_as_of": ["Who was {s}'s stand-in on {date}?"],
    "q_history": ["Who was {s}'s stand-in before {v}?"],
}
T["stunt_double"] = {
    "state": ["{s}'s stunt double is {v}.", "{v} doubles for {s} on the stunts.", "Stunt team sheet\nArtist: {s}\nDouble: {v}",
              "On stunt days {v} doubles {s}.", "Artist | Stunt double\n{s} | {v}"],
    "change": ["{s} has a new stunt double, {v}; {old} has moved on.", "Stunt coordinator confirms {v} replaces {old} as {s}'s double.",
               "{s}'s double changed from {old} to {v}."],
    "first_state": ["My stunt double is {v}.", "{v} does all my falls lol", "{v} doubles for me on anything risky."],
    "first_change": ["New stunt double for me: {v}. {old} is off on a film.", "my double is {v} now not {old}",
                     "Met {v} today, my new stunt double - taking over from {old}."],
    "correction": ["Correction: {s}'s stunt double is {v}, not {old}.", "Sorry, my mistake: {v} doubles for {s}, not {old}."],
    "as_of": ["As of {date}, {v} is {s}'s stunt double.", "Stunt plan {date_iso}: {s} doubled by {v}",
              "{v} has been doubling for {s} since {weekday}."],
    "distractor": ["{x} doubled {s} for the car scene only, because of the driving licence.",
                   "The stunt coordinator wants {x} to double {s} next series.", "Is {x} doubling {s} on Thursday?",
                   "{x} doubles {s}'s screen husband.", "{x} is not {s}'s double, whatever the old call sheet says."],
    "q_current": ["Who is {s}'s stunt double now?"],
    "q_as_of": ["Who was {s}'s stunt double on {date}?"],
    "q_history": ["Who was {s}'s stunt double before {v}?"],
}
T["status"] = {
    "state": ["The {svc} on {env} is {v} at the moment.", "{env} - {svc}: {v}", "Kit check, {env}: {svc} {v}.",
              "Just looked at the {svc} on {env}, it's {v}.", '{{"kit": "{svc}", "stage": "{env}", "state": "{v}"}}'],
    "change": ["The {svc} on {env} has gone from {old} to {v}.", "Kit room log: {env} {svc} changed {old} -> {v}.",
               "Update from the floor: the {env} {svc} is {v} now.", "Kit room ticket for the {svc} ({env}) updated: {v}, was {old}."],
    "correction": ["Correction: the {svc} on {env} is {v}, not {old} - I was thinking of the other stage.",
                   "Sorry, my bad, {env}'s {svc} is {v}, not {old}."],
    "as_of": ["As of {date} the {env} {svc} is {v}.", "{date_iso} {env} {svc} status: {v}", "The {svc} on {env} has been {v} since {weekday}.",
              "Call sheet, {date_long} - {env} kit: {svc} {v}"],
    "distractor": ["If the {env} {svc} ends up {x}, we'll borrow the one from the other unit.",
                   "Is the {svc} on {env} {x}? Someone's put gaffer tape over the switch.",
                   "The spare {svc} from the hire company came in {x}.", "The {svc} on the backlot is {x}, not ours on {env}."],
    "q_current": ["What state is the {svc} on {env} in now?"],
    "q_as_of": ["What state was the {svc} on {env} in on {date}?"],
    "q_history": ["What state was the {svc} on {env} in before it was {v}?"],
}
T["rig_position"] = {
    "state": ["The {svc} on {env} is rigged on the {v} set.", "{env} {svc} - rigged: {v} set",
              "Rigging plan\nStage: {env}\nKit: {svc}\nSet: {v}", "You'll find the {env} {svc} over on the {v} set."],
    "change": ["The {env} {svc} has been moved from the {old} set to the {v} set.", "Re-rig done: {svc} on {env} now on {v} (was {old}).",
               "We've struck the {svc} off the {old} set and put it up on the {v} set, {env}."],
    "correction": ["Correction: the {env} {svc} is on the {v} set, not {old}.",
                   "Sorry, wrong set - the {svc} on {env} is rigged on {v}, not {old}."],
    "as_of": ["As of {date}, the {svc} on {env} is rigged on the {v} set.", "Rigging plan {date_dots}: {env} {svc} on {v}",
              "The {env} {svc} has been on the {v} set since {weekday}."],
    "distractor": ["The {env} {svc} will go on the {x} set for one scene on Friday, then straight back.",
                   "Could we move the {svc} on {env} to the {x} set? The DoP wants it there.",
                   "Is the {env} {svc} on the {x} set? I can't see it from the gallery.",
                   "The {svc} on the {x} set is the hired one, not the {env} one."],
    "q_current": ["Which set is the {svc} on {env} rigged on now?"],
    "q_as_of": ["Which set was the {svc} on {env} rigged on as of {date}?"],
    "q_history": ["Which set was the {svc} on {env} rigged on before {v}?"],
}
T["operator"] = {
    "state": ["{v} operates the {svc} on {env}.", "{env} {svc} - op: {v}", "The {svc} on {env} is {v}'s; nobody else touches it.",
              "Crew list\nStage,Kit,Operator\n{env},{svc},{v}"],
    "change": ["{v} has taken the {env} {svc} over from {old}.", "Operator change on {env}: {svc} now {v}, previously {old}.",
               "{old} has handed the {svc} on {env} over to {v}."],
    "correction": ["Correction: {v} runs the {env} {svc}, not {old}.",
                   "Sorry, I meant {v} - {old} doesn't operate the {svc} on {env} any more."],
    "as_of": ["As of {date}, {v} operates the {svc} on {env}.", "Crew list {date_iso}: {env} {svc} op {v}",
              "{v} has been on the {env} {svc} since {weekday}."],
    "distractor": ["{x} jumped on the {env} {svc} for one take while the op was on a break.", "{x} is training up on the {svc} on {env}.",
                   "Can {x} cover the {env} {svc} on Friday?", "{x} operates the {svc} on the second unit, not the {env} one."],
    "q_current": ["Who operates the {svc} on {env} now?"],
    "q_as_of": ["Who operated the {svc} on {env} on {date}?"],
    "q_history": ["Who operated the {svc} on {env} before {v}?"],
}
T["hire_company"] = {
    "state": ["We hire our {svc} kit from {v}.", "{svc}: on hire from {v}", "Supplier list\nKit,Hire company\n{svc},{v}",
              "Any problem with a {svc}, ring {v}, it's their kit."],
    "change": ["We've moved {svc} hire from {old} to {v}.", "Production have switched the {svc} account over to {v}; {old} is finished.",
               "Subject: {svc} hire\n\nHi both,\n\nFrom this block the {svc} comes from {v} rather than {old}. New PO to follow.\n\nProduction Accountant"],
    "correction": ["Correction: the {svc} is hired from {v}, not {old}.", "Sorry, {v} supply the {svc}, I said {old} by mistake."],
    "as_of": ["As of {date}, our {svc} kit is hired from {v}.", "PO register {date_iso}: {svc} - {v}", "{v} have supplied the {svc} since {weekday}."],
    "distractor": ["{x} sent over a quote for the {svc}, we haven't said yes.", "Could {x} do the {svc} cheaper? Worth a call.",
                   "The film next door gets its {svc} from {x}.", "We don't get the {svc} from {x}, they only do the generators.",
                   "{x} lent us a {svc} for a day when ours broke."],
    "q_current": ["Which hire company supplies the {svc} now?"],
    "q_as_of": ["Which hire company supplied the {svc} on {date}?"],
    "q_history": ["Which hire company supplied the {svc} before {v}?"],
}
T["base"] = {
    "state": ["{team} are based in {v}.", "Studio map: {team} - {v}", "The {team} office is in {v}.", "Department,Base\n{team},\"{v}\"",
              "If you need {team}, they're in {v}."],
    "change": ["{team} have relocated from {old} to {v}.", "Office move: {team} out of {old}, into {v}.",
               "Hi all,\n\n{team} are now in {v}. Please stop sending deliveries to {old}.\n\nFacilities"],
    "correction": ["Correction: {team} are in {v}, not {old}.", "Ignore what I said, {team} are in {v}; {old} is empty."],
    "as_of": ["As of {date}, {team} are based in {v}.", "Studio map rev {date_dots}: {team} in {v}", "{team} have been in {v} since {weekday}."],
    "distractor": ["{team} are borrowing {x} for a day while the heating's fixed.", "{team} might move into {x} next series.",
                   "Are {team} in {x}? The door was locked.", "{x} is where the {team} stock is kept, the office is elsewhere.",
                   "{team} aren't in {x}, that's the extras' holding area."],
    "q_current": ["Where is the {team} team based now?"],
    "q_as_of": ["Where was the {team} team based on {date}?"],
    "q_history": ["Where was the {team} team based before {v}?"],
}
T["director"] = {
    "state": ["Ep {p} is directed by {v}.", "{v} is directing episode {p}.", "Block plan\nEpisode: {p}\nDirector: {v}",
              "Ep | Director\n{p} | {v}", "Episode {p} - dir. {v}"],
    "change": ["{v} has taken over episode {p} from {old}.", "Director change on ep {p}: {old} out, {v} in.",
               "Subject: Ep {p} director\n\nHi all,\n\n{old} is no longer able to direct {p}; {v} will direct it instead.\n\nProducer's Office"],
    "correction": ["Correction: ep {p} is {v}'s, not {old}'s.", "Sorry, I meant {v} is directing {p}, not {old}."],
    "as_of": ["As of {date}, episode {p} is directed by {v}.", "Director schedule {date_iso}: ep {p} - {v}",
              "{v} has been attached to ep {p} since {weekday}."],
    "distractor": ["{x} is shadowing on ep {p}, not directing it.", "{x} might do a pick-up day on episode {p}.",
                   "Is {x} on ep {p}? Their name's on the prep schedule.", "{x} is directing the spin-off, not ep {p}."],
    "q_current": ["Who is directing episode {p} now?"],
    "q_as_of": ["Who was directing episode {p} on {date}?"],
    "q_history": ["Who was directing episode {p} before {v}?"],
}
T["tx_date"] = {
    "state": ["Ep {p} goes out on {v}.", "TX {p}: {v}", "Episode {p} is scheduled for transmission on {v}.",
              "Transmission schedule\nEp,TX\n{p},{v}"],
    "change": ["Ep {p} has been moved from {old} to {v} because of the football.", "TX change: episode {p} now {v} (was {old}).",
               "Subject: Revised TX - ep {p}\n\nThe channel have moved episode {p} to {v}. It was going out on {old}.\n\nScheduling"],
    "correction": ["Correction: ep {p} transmits {v}, not {old}.", "Sorry, typo - {p} goes out {v}; {old} was the old slot."],
    "as_of": ["As of {date}, episode {p} is due to go out on {v}.", "Channel grid {date_iso}: ep {p} TX {v}"],
    "q_current": ["When is episode {p} due to be transmitted now?"],
    "q_as_of": ["When was episode {p} due to be transmitted, as known on {date}?"],
    "q_history": ["When was episode {p} due to be transmitted before {v}?"],
}
T["edit_suite"] = {
    "state": ["Ep {p} is cutting in {v}.", "Post schedule: {p} - {v}", "Episode {p} is being edited in {v}.", "Ep,Suite\n{p},{v}"],
    "change": ["Ep {p} has moved from {old} to {v}.", "Episode {p}'s edit has gone from {old} to {v}; the Avid in {old} is being upgraded.",
               "Post update: {p} now in {v}, not {old}."],
    "correction": ["Correction: ep {p} is in {v}, not {old}.", "Sorry, I meant {v} for {p}; {old} was the old booking."],
    "as_of": ["As of {date}, episode {p} is being cut in {v}.", "Post schedule {date_dots}: ep {p} in {v}", "Ep {p} has been in {v} since {weekday}."],
    "distractor": ["Ep {p} borrowed {x} for an afternoon of sound checks.", "Could ep {p} go into {x}? It has the bigger monitor.",
                   "Is {p} in {x} today? The door says so.", "{x} is where they're grading, not where ep {p} is cut.",
                   "Ep {p} isn't in {x}, that's the trailer edit."],
    "q_current": ["Which edit suite is episode {p} being cut in now?"],
    "q_as_of": ["Which edit suite was episode {p} being cut in on {date}?"],
    "q_history": ["Which edit suite was episode {p} being cut in before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A spreadsheet-database record with capitalised field names, a kit tracking scan, a
    # purchase-order search, a studio map lookup and an episode scheduling record.
    "person": ("castdb.get_record", {"table": "Cast", "fields": {"Artist": "{s}", "{key}": "{v}"}}),
    "deployment": ("kittrack.scan", {"item": "{svc}", "location": {"stage": "{env}"}, "{key}": "{v}", "scanned_by": "kit room"}),
    "service": ("po.search", {"query": "{svc} hire", "orders": [{"line_item": "{svc}", "{key}": "{v}", "po_status": "open"}]}),
    "team": ("studiomap.department", {"department": "{team}", "location": {"{key}": "{v}"}}),
    "project": ("scheduling.episode", {"episode": {"number": "{p}", "{key}": "{v}"}, "series": "current"}),
}
TOOL_STAMP = ("last_modified", "%d/%m/%Y %I:%M %p")
JSON_KEYS = {"dressing_room": "Dressing room", "agent": "Agent", "contract_end": "Contract end", "stand_in": "Stand-in",
             "stunt_double": "Stunt double", "status": "kit_status", "rig_position": "rigged_on", "operator": "operator",
             "hire_company": "hire_company", "base": "base", "director": "director", "tx_date": "tx", "edit_suite": "edit_suite"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Catering is {food} today, lunch at {time}.",
        "{name} is in make-up until {time}.",
        "Reminder for everyone: {topic} this {weekday}.",
        "Rushes from {weekday} are up on the server.",
        "Whoever's parked across the scene dock doors, please move, {name} can't get the flats out.",
        "We're {n} minutes behind, lunch might slip to {time}.",
        "{name} has a fan letter from {city}, it's in their pigeonhole.",
        "lol {name} corpsed {n} takes in a row",
        "Exterior shoot forecast: {weather}.",
        "Quiet on the backlot please, recording from {time}.",
        "{n} extras booked for tomorrow's pub scene, can {name} check the list?",
        "Unit minibus to {city} leaves at {time} for the location recce.",
    ],
    "tool": [
        '{{"rushes": {{"card": "A{n}", "clips": {n2}, "state": "ingested"}}}}',
        '{{"location": "{city}", "outlook": "{weather}", "gusts_mph": {n}}}',
        '{{"extras_booking": {{"scene": "{n}", "headcount": {n2}, "call": "{time}"}}}}',
        '{{"catering": {{"day": "{weekday}", "hot_option": "{food}"}}}}',
    ],
    "tool_names": ["dit.ingest_status", "weather.location_outlook", "extras.bookings", "catering.todays_menu"],
}

REPORTERS = (("Gail", "user:gail.prodco"), ("Hamza", "user:hamza.2ndad"), ("Nicola", "user:nicola.kitroom"))
LOW_TRUST = (("document", "doc:production-wiki-export"), ("document", "doc:cast-contact-sheet-v3.xlsx"),
             ("peer", "agent:callsheet-drafter"))
