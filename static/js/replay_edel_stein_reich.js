/* Edel, Stein & Reich for the replay viewer (static/js/replay.js): phase and
 * round, the gem supply and decks, the offered event, each seat's gems,
 * money, gem card, held events and action choice, the bargaining as a
 * readable sequence of offers, and the round's log — from one spectator view
 * or, with "View as" a seat, that seat's observation (docs/games/
 * edel-stein-reich.md): the same shape, with its own secret choice
 * (`my_choice`, .esr-secret-own) and its own money. Every gem shows its colour's letter (as
 * in the action grammar: R Y G B), and counts read as "4 red" for screen
 * readers (visually hidden words beside the aria-hidden pips).
 *
 * Hooks: .esr-seat[data-seat] (data-choice), .esr-bargain, .esr-offers li,
 * .esr-event[data-event], .esr-log li[data-type].
 */
(function () {
  "use strict";

  var COLOURS = ["red", "yellow", "green", "blue"];
  var LETTERS = { red: "R", yellow: "Y", green: "G", blue: "B" };
  var ACTION_WORDS = { money: "Money", event: "Event", gems: "Gems", free: "Free Choice" };
  var ORDER = ["money", "event", "gems", "free"];
  var PHASES = {
    commit: "everyone chooses an action card in secret",
    bargain: "bargaining",
    event_choice: "taking the event card or drawing blind",
    immediate: "using an immediate event card",
    pick: "picking gems",
    "return": "returning a gem",
    swap: "swapping gems",
    tribute: "paying tribute",
    over: "game over",
  };

  /* "2 red, 1 green": as the engine says gems (gems_text in
   * arena/games/edel_stein_reich/render.py), whose step descriptions the
   * viewer shows above these lines */
  function gemsText(gems) {
    var parts = COLOURS.filter(function (c) { return gems && gems[c]; }).map(function (c) { return gems[c] + " " + c; });
    return parts.length ? parts.join(", ") : "nothing";
  }

  var knownNames = {};
  var knownCards = {};  // id -> the card (kind, op, params): what a held card does
  var scanned = null;

  /* Event names as printed: every card of the match's components comes with
   * the replay (game_data.events, GameDef.public_data); a replay without them
   * names the cards offered in any frame, and other ids read as words
   * ("scoring-red-x2"). */
  function learnCatalogue(gameData) {
    var events = (gameData && gameData.events) || {};
    Object.keys(events).forEach(function (id) {
      if (events[id].name) knownNames[id] = events[id].name;
      if (events[id].op) knownCards[id] = events[id];
    });
  }

  function learnNames(frames) {
    if (scanned === frames && frames.scannedTo === frames.length) return;
    for (var i = scanned === frames ? frames.scannedTo : 0; i < frames.length; i++) {
      var v = frames[i].view;
      [v.offered_event, v.pending_event].forEach(function (e) {
        if (!e) return;
        knownNames[e.id] = e.name;
        if (e.op && !knownCards[e.id]) knownCards[e.id] = e;
      });
    }
    scanned = frames;
    frames.scannedTo = frames.length;
  }

  function eventName(id) {
    if (knownNames[id]) return knownNames[id];
    return String(id).replace(/-/g, " ").replace(/^./, function (c) { return c.toUpperCase(); });
  }

  function money(n) { return n === null || n === undefined ? "hidden" : n + " M"; }

  /* One public log entry in words (null: not worth a line). */
  function logText(e, name, state) {
    switch (e.type) {
      case "reveal": return "Choices revealed: " + e.choices.map(function (c, s) { return name(s) + " " + ACTION_WORDS[c]; }).join(", ") + ".";
      case "perform": return name(e.seat) + " performs " + ACTION_WORDS[e.action] + ".";
      case "lost": return ACTION_WORDS[e.action] + " is lost: " + e.seats.map(name).join(", ") + " all chose it.";
      case "void": return ACTION_WORDS[e.action] + " is void: neither " + e.seats.map(name).join(" nor ") + " has gems to offer.";
      case "gain": return name(e.seat) + " gains " + gemsText(e.gems) + ".";
      case "reshuffle": return "The event discard pile is shuffled into a new deck (" + e.event_deck_size + " cards).";
      case "no_event": return "No event card is left for " + name(e.seat) + ".";
      case "take": return name(e.seat) + " takes the event " + eventName(e.card) + ".";
      case "blind": return name(e.seat) + " draws blind: " + eventName(e.card) + ".";
      case "apply": return name(e.seat) + " applies " + eventName(e.card) + ".";
      case "decline": return name(e.seat) + " declines " + eventName(e.card) + ".";
      case "pick": return name(e.seat) + " picks 1 " + e.colour + ".";
      case "return": return name(e.seat) + " returns 1 " + e.colour + ".";
      case "swap": return name(e.seat) + " gives 1 " + e.gave + " to " + name(e["with"]) + " and takes 1 " + e.took + ".";
      case "give": return name(e.seat) + " gives 1 " + e.colour + " to " + name(e.to) + ".";
      case "free_shared": return "Free Choice is shared, in this order: " + e.order.map(name).join(", ") + ".";
      case "offer":
        var verb = state.offers ? " raises to " : " offers ";
        state.offers += 1;
        return name(e.seat) + verb + gemsText(e.gems) + ".";
      case "accept":
        state.offers = 0;
        return name(e.seat) + " accepts " + gemsText(e.gems) + " from " + name(e.maker) + "; " + name(e.winner) + " gets the action.";
      case "majority":
        if (!e.seats.length) return "Scoring " + e.colour + ": nobody scores.";
        var one = e.seats.length === 1;
        return "Scoring " + e.colour + ": " + e.seats.map(name).join(", ") + (one ? " gets " : " get ") + e.money_each + " M" +
          (one ? "" : " each") + (e.returned_each ? (one ? " and returns " : " and return ") + e.returned_each + " " + e.colour : "") + ".";
      case "bonus": return name(e.seat) + " scores " + eventName(e.card) + ": +" + e.money + " M.";
      case "certificates": return name(e.seat) + " has " + e.count + " certificate" + (e.count === 1 ? "" : "s") + ": +" + e.money + " M.";
      case "scored": return "End of phase " + e.phase + " scoring.";
      default: return e.type;
    }
  }

  function render(root, frame, ctx) {
    var h = ctx.h;
    var v = frame.view;
    var name = ctx.name;
    var vh = ctx.vh;
    learnCatalogue(ctx.gameData);
    learnNames(ctx.frames);
    // the last position of a finished match says how it ended (forfeits too)
    var outcome = ctx.outcome || v.outcome;

    function gem(colour, n, extra) {
      return h("span", { class: "esr-gem esr-g-" + colour + (n ? "" : " esr-zero") + (extra ? " " + extra : ""), title: n + " " + colour, "data-colour": colour },
        h("span", { class: "esr-pip", "aria-hidden": "true", text: LETTERS[colour] }), String(n), vh(" " + colour + ","));
    }

    function gems(counts) {
      return h("span", { class: "esr-gems" }, COLOURS.map(function (c) { return gem(c, counts[c] || 0); }));
    }

    function gemCard(c) {
      if (!c) return h("span", { class: "esr-none", text: "no gem card" });
      var words = c.id + ": Money pays " + c.money + " M, Gems gives " + gemsText(c.gems);
      return h("span", { class: "esr-gem-card", title: "gem card " + words }, vh(words + "."),
        h("span", { class: "esr-card-id", "aria-hidden": "true", text: c.id }),
        h("span", { class: "esr-card-money", "aria-hidden": "true", text: c.money + " M" }),
        // spaced as every other row of gems (bare, a count touched the next gem: "Y 1G 2B 1")
        h("span", { class: "esr-gems", "aria-hidden": "true" },
          COLOURS.filter(function (col) { return c.gems[col]; }).map(function (col) { return gem(col, c.gems[col], "esr-small"); })));
    }

    // a card a player keeps: its name, and what it does once it left the offer
    function heldCard(id) {
      var card = knownCards[id];
      return h("span", { class: "esr-held-card", "data-event": id },
        h("b", { text: eventName(id) }),
        card ? h("span", { class: "esr-held-effect", text: effectText(card) }) : null);
    }

    function eventCard(e, label) {
      if (!e) return null;
      return h("div", { class: "esr-event esr-kind-" + e.kind, "data-event": e.id },
        h("span", { class: "esr-label", text: label }),
        h("b", { text: e.name }),
        h("span", { class: "esr-event-kind", text: e.kind.replace(/_/g, " ") }),
        h("span", { class: "esr-event-effect", text: effectText(e) }));
    }

    // -- header: phase, round, supply, decks ----------------------------------
    var head = h("div", { class: "esr-head" },
      h("span", { class: "esr-phase" }, "Phase ", h("b", { text: v.phase_number + "/3" }), " · Round ",
        h("b", { text: v.round + "/" + v.rounds_per_phase })),
      h("span", { class: "esr-now", text: PHASES[v.phase] || v.phase }),
      h("span", { class: "esr-supply" }, h("span", { class: "esr-label", text: "Supply" }), gems(v.supply)),
      h("span", { class: "esr-decks" },
        h("span", { title: "gem card deck", text: "Gem cards " + v.gem_deck_size }),
        h("span", { title: "gem cards set aside this phase" + (v.set_aside_top ? " (top: " + v.set_aside_top + ")" : ""), text: "Set aside " + v.set_aside_count }),
        h("span", { title: "event deck", text: "Events " + v.event_deck_size })));

    // -- action choices ---------------------------------------------------------
    var choices = null;
    if (v.choices) {
      choices = h("div", { class: "esr-choices" }, ORDER.map(function (action) {
        var who = [];
        v.choices.forEach(function (c, s) { if (c === action) who.push(s); });
        if (!who.length) return null;
        var verdict = who.length === 1 ? "performs" : who.length === 2 || action === "free" ? (action === "free" ? "share" : "bargain") : "lost";
        return h("div", { class: "esr-choice" + (v.resolving === action ? " esr-resolving" : ""), "data-action": action },
          h("b", { text: ACTION_WORDS[action] }), h("span", { class: "esr-who", text: who.map(name).join(" & ") }),
          h("span", { class: "esr-verdict esr-v-" + verdict, text: verdict }));
      }));
    }

    // -- bargaining ----------------------------------------------------------------
    var bargain = null;
    // the step that accepts an offer closes the bargain: show it with its offers
    // (when the accept ended the round, its log is the previous round's)
    var accepted = frame.action === "accept";
    var offers = currentOffers(v.log, accepted);
    if (accepted && !offers.length) offers = currentOffers(v.previous_log, true);
    var closed = offers.length && offers[offers.length - 1].type === "accept" ? offers[offers.length - 1] : null;
    if (v.bargain || offers.length) {
      // a closed bargain's panel leaves out the next one, which may have begun in the same step
      var b = closed ? null : v.bargain;
      var items = [];
      offers.forEach(function (e, i) {
        if (e.type === "offer") {
          items.push(h("li", { class: "esr-offer", "data-seat": e.seat },
            h("b", { text: name(e.seat) }), i === 0 ? " offers " : " raises to ", gemsOrText(h, e.gems, gem)));
        } else {
          items.push(h("li", { class: "esr-accept", "data-seat": e.seat },
            h("b", { text: name(e.seat) }), " accepts ", gemsOrText(h, e.gems, gem), " from " + name(e.maker) + " — " + name(e.winner) + " performs the action"));
        }
      });
      if (b && Object.keys(b.building).length) {
        // the counts chosen so far, colour by colour; a colour left out (0) is not news
        var building = b.building;
        var announced = COLOURS.filter(function (c) { return building[c] > 0; }).map(function (c) { return building[c] + " " + c; });
        var maker = v.to_act[0];
        items.push(h("li", { class: "esr-building" }, h("b", { text: name(maker) }), " is announcing a raise",
          announced.length ? ": " + announced.join(", ") + " …" : " …"));
      }
      var title = b ? "Bargaining for " + ACTION_WORDS[b.action] + ": " + name(b.opener) + " opens, " + name(b.other) + " answers"
        : closed && closed.action ? "Bargaining for " + ACTION_WORDS[closed.action] + ": settled" : "Bargaining";
      bargain = h("div", { class: "esr-bargain" }, h("h3", { text: title }),
        items.length ? h("ol", { class: "esr-offers" }, items) : h("p", { class: "esr-none", text: "No offer yet." }),
        b && b.standing.maker !== null ? h("p", { class: "esr-standing" }, "Standing offer: " + gemsText(b.standing.gems) + " by " + name(b.standing.maker) +
          " (" + b.standing.size + " gems, value " + b.standing.value + ")") : null);
    }

    // -- seats ---------------------------------------------------------------------
    var seats = h("div", { class: "esr-seats" }, v.players.map(function (p) {
      var s = p.seat;
      var toAct = !outcome && v.to_act.indexOf(s) >= 0;
      var choice = v.choices ? v.choices[s] : null;
      var rank = outcome ? outcome.ranks[s] : null;
      var fault = ctx.forfeit(s);
      return h("section", {
        class: "esr-seat" + (toAct ? " esr-to-act" : "") + (frame.seat === s ? " esr-acted" : "") + (rank === 1 ? " esr-winner" : ""),
        "data-seat": s, "data-choice": choice || "",
      },
        h("header", { class: "esr-seat-head" }, h("h3", { class: "esr-name", text: name(s) }),
          rank ? h("span", { class: "esr-rank", text: rank === 1 ? "winner" : "rank " + rank }) : null,
          h("span", { class: "esr-money", title: "money (millions)" }, vh("Money: "), money(p.money)),
          fault ? h("span", { class: "r-fault", title: fault.title, text: fault.text }) : null),
        h("div", null, vh("Gems: "), gems(p.gems)),
        h("div", { class: "esr-row" }, h("span", { class: "esr-label", text: "Gem card" }), gemCard(p.gem_card)),
        h("div", { class: "esr-row" }, h("span", { class: "esr-label", text: "Choice" }),
          choice ? h("span", { class: "esr-choice-badge esr-a-" + choice, text: ACTION_WORDS[choice] })
            : v.my_choice && v.seat === s ? h("span", { class: "esr-secret-own" },
              h("span", { class: "esr-choice-badge esr-a-" + v.my_choice, text: ACTION_WORDS[v.my_choice] }),
              h("span", { class: "esr-secret", text: " (secret)" }))
            : v.phase === "commit" ? h("span", { class: "esr-secret", text: p.has_chosen ? "chosen (secret)" : "choosing…" })
              : h("span", { class: "esr-none", text: "–" })),
        p.held_events.length ? h("div", { class: "esr-row" }, h("span", { class: "esr-label", text: "Events" }),
          h("span", { class: "esr-held" }, p.held_events.map(heldCard))) : null);
    }));

    // -- log -------------------------------------------------------------------------
    function logList(entries) {
      var state = { offers: 0 };
      return h("ol", { class: "esr-log" }, entries.map(function (e) {
        return h("li", { "data-type": e.type, text: logText(e, name, state) });
      }));
    }

    var status = h("p", { class: "esr-status" }, statusText(v, outcome, ctx));
    root.appendChild(h("div", { class: "esr" },
      status, head,
      h("div", { class: "esr-middle" },
        h("div", { class: "esr-events" }, eventCard(v.offered_event, "Offered event"), eventCard(v.pending_event, "Being resolved"),
          !v.offered_event && !v.pending_event ? h("span", { class: "esr-none", text: "No event card on offer." }) : null),
        choices),
      bargain, seats,
      h("div", { class: "esr-logs" },
        h("h3", { text: "This round" }), v.log.length ? logList(v.log) : h("p", { class: "esr-none", text: "Nothing yet." }),
        v.previous_log.length ? h("details", { class: "esr-prev" }, h("summary", { text: "Previous round" }), logList(v.previous_log)) : null)));
  }

  function gemsOrText(h, gems, gem) {
    var shown = COLOURS.filter(function (c) { return gems[c]; });
    if (!shown.length) return "nothing";
    return h("span", { class: "esr-gems esr-inline", title: gemsText(gems) }, shown.map(function (c) { return gem(c, gems[c], "esr-small"); }));
  }

  /* The offers of the bargain going on: the run of offer entries at the end of
   * the log. With `accepted` (the step accepted an offer) the bargain that
   * just ended: the run of offers before the log's last accept, with that
   * accept — the engine logs, in the same step, the action the winner
   * performs and whatever follows (perform, gain, the next action…). Each
   * returned accept entry gets the `action` bargained for, from the perform
   * entry after it. */
  function currentOffers(log, accepted) {
    var end = log.length;
    if (accepted) {
      end = -1;
      for (var k = log.length - 1; k >= 0; k--) if (log[k].type === "accept") { end = k + 1; break; }
      if (end < 0) return [];
    }
    var out = [];
    for (var i = end - 1; i >= 0; i--) {
      var e = log[i];
      if (e.type === "offer") out.unshift(e);
      else if (accepted && i === end - 1) {
        var next = log[end];
        out.unshift(next && next.type === "perform" ? Object.assign({ action: next.action }, e) : e);
      } else break;
    }
    return out;
  }

  function effectText(e) {
    var p = e.params || {};
    switch (e.op) {
      case "certificate": return "kept until scoring: most certificates earn a prize";
      case "majority_bonus": return "at scoring: +" + p.bonus + " M for a " + p.colour + " majority";
      case "gain_money": return "gain " + p.money + " M now";
      case "gain_gems": return "gain " + gemsText(p.gems) + " now";
      case "gain_any_gems": return "pick " + p.count + (p.count === 1 ? " gem" : " gems") + " of any colour";
      case "swap_one_gem_with_player": return "swap one gem with another player";
      case "each_opponent_gives_one_gem_of_their_choice": return "every opponent gives you one gem";
      default: return e.op.replace(/_/g, " ");
    }
  }

  function statusText(v, outcome, ctx) {
    var name = ctx.name;
    if (outcome) {
      var winners = outcome.ranks.map(function (r, s) { return r === 1 ? name(s) : null; }).filter(Boolean);
      return (winners.length > 1 ? "Shared win: " + winners.join(", ") : winners[0] + " wins") + " — " + ctx.words(outcome.reason) + ".";
    }
    var who = v.to_act.map(name).join(", ");
    if (v.phase === "commit") return "Waiting for " + who + " to choose.";
    return who + ": " + (PHASES[v.phase] || v.phase) + (v.resolving ? " (" + ACTION_WORDS[v.resolving] + ")" : "") + ".";
  }

  window.GemReplay = window.GemReplay || { renderers: {} };
  window.GemReplay.renderers = window.GemReplay.renderers || {};
  /* The step's line where the server's words are out of date: a secret
   * choice comes as "seat N chooses in secret" in a seat's view and live, but
   * the last seat's choice reveals them all in the same step (the board then
   * shows them): name it. Null: the server's description stands. */
  function describe(frame, ctx) {
    if (frame.action !== null || frame.seat === null || frame.seat === undefined || !frame.step) return null;
    var before = ctx.frames[frame.step - 1];
    var v = frame.view, was = before && before.view;
    if (!was || was.phase !== "commit") return null;
    var sameRound = v.round === was.round && v.phase_number === was.phase_number;
    if (sameRound && v.phase === "commit") return null; // others still to choose: still secret
    var log = sameRound ? v.log : v.previous_log;
    var reveal = null;
    (log || []).forEach(function (e) { if (e.type === "reveal") reveal = e; });
    var choice = reveal && reveal.choices[frame.seat];
    if (!ACTION_WORDS[choice]) return null;
    return "seat " + frame.seat + " chooses the " + ACTION_WORDS[choice] + " action card, the last to choose: every choice is revealed";
  }

  window.GemReplay.renderers["edel-stein-reich"] = { render: render, describe: describe, logText: logText, currentOffers: currentOffers };
})();
