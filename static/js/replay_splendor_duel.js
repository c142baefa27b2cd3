/* Splendor Duel for the replay viewer (static/js/replay.js): the token board,
 * the pyramid with its decks, the royal cards, the privileges and both
 * players, drawn from one spectator view or, with "View as" a seat, that
 * seat's observation (docs/games/splendor-duel.md): the same shape, with
 * the seat's own blind reservations face up (marked .sd-blind).
 * Card faces come from the server's game data (GameDef.public_data()).
 *
 * Every token, cost and bonus carries its colour's letter (LETTERS, as
 * `arena replay show` prints them), so colour is never the only clue; and
 * the drawing is aria-hidden where a visually hidden sentence (.r-vh) says
 * the same in words: "c3: red", "4 white", "L1-18: red card, 1 point …".
 *
 * Hooks: .sd-cell[data-cell="c3"] (data-token), .sd-card[data-card="L1-02"],
 * .sd-player[data-seat], .sd-deck[data-level] (data-count).
 */
(function () {
  "use strict";

  var GEMS = ["white", "blue", "green", "red", "black"];
  var TOKENS = ["white", "blue", "green", "red", "black", "pearl", "gold"];
  var COST = ["white", "blue", "green", "red", "black", "pearl"];
  var LETTERS = { white: "W", blue: "B", green: "G", red: "R", black: "K", pearl: "P", gold: "Y" };
  var COLS = "abcde";
  var ABILITY = {
    play_again: ["↻", "play again"],
    take_token_matching_card_color: ["+1", "take a token of the card's colour from the board"],
    steal_token: ["✂", "steal a token from the opponent"],
    take_privilege: ["P", "take a privilege"],
  };

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many || one + "s"); }

  function abilityWords(a) { return (ABILITY[a] || [a, a.replace(/_/g, " ")])[1]; }

  /* "L1-18: red card, 1 point, 1 crown, bonus 1 red, take a privilege; costs 2 white, 1 pearl" */
  function cardWords(id, c, opts) {
    var parts = [];
    if (c.kind === "joker") parts.push(opts.copy ? "copy card on " + opts.copy : "copy card");
    else if (c.bonus_color) parts.push(c.bonus_color + " card");
    else parts.push("points card");
    if (c.points) parts.push(plural(c.points, "point"));
    if (c.crowns) parts.push(plural(c.crowns, "crown"));
    if (c.bonus_count) {
      var colour = opts.copy || (c.kind === "joker" ? null : c.bonus_color);
      parts.push(colour ? "bonus " + c.bonus_count + " " + colour : "bonus " + c.bonus_count + " of the colour it copies");
    }
    (c.abilities || []).forEach(function (a) { if (a !== "copy_color") parts.push(abilityWords(a)); });
    var text = id + ": " + parts.join(", ");
    if (!opts.small) {
      var cost = COST.map(function (t, i) { return c.cost[i] ? c.cost[i] + " " + t : null; }).filter(Boolean);
      text += "; costs " + (cost.length ? cost.join(", ") : "nothing");
    }
    return text;
  }

  function render(root, frame, ctx) {
    var h = ctx.h;
    var vh = ctx.vh;
    var v = frame.view;
    var data = ctx.gameData || {};
    var cards = data.cards || {};
    var royals = data.royals || {};
    var acting = frame.seat;
    var act = parseAction(frame.action);
    // the last position of a finished match says how it ended (forfeits too)
    var outcome = ctx.outcome || v.outcome;

    /* a token with its letter; the words are the caller's */
    function token(type) {
      return h("span", { class: "sd-token sd-t-" + type, title: type, "aria-hidden": "true", text: LETTERS[type] });
    }

    /* "4 white": the token and the count, read as number and colour */
    function count(type, n) {
      return h("span", { class: "sd-count" + (n ? "" : " sd-zero"), "data-token": type },
        token(type), String(n), vh(" " + type + ","));
    }

    function crown(n) {
      return h("span", { class: "sd-crowns", title: plural(n, "crown") }, "♛", n > 1 ? String(n) : "");
    }

    function card(id, opts) {
      opts = opts || {};
      var c = cards[id];
      var blind = opts.blind ? " (reserved blind: only its owner sees it)" : "";
      if (!c) return h("div", { class: "sd-card sd-card-unknown", "data-card": id, role: opts.item ? "listitem" : null, text: id });
      var colour = opts.copy || (c.kind === "joker" ? "joker" : c.bonus_color || "none");
      var isNew = act.card === id;
      var cls = "sd-card sd-c-" + colour + (opts.copy ? " sd-copied" : "") + (opts.blind ? " sd-blind" : "") +
        (opts.small ? " sd-small" : "") + (isNew ? " sd-new" : "");
      var bonus = null;
      if (c.bonus_count) {
        bonus = [h("span", { class: "sd-bonus sd-t-" + colour, title: "bonus: " + c.bonus_count + " " + colour },
          colour === "joker" ? "" : LETTERS[colour]),
        c.bonus_count > 1 ? h("span", { class: "sd-bonus-x", text: "×" + c.bonus_count }) : null];
      }
      var top = h("div", { class: "sd-card-top", "aria-hidden": "true" },
        h("span", { class: "sd-pts", text: c.points ? String(c.points) : "" }),
        c.crowns ? crown(c.crowns) : null, bonus);
      // a copy card's rainbow bonus already says what its ability does
      var abilities = (c.abilities || []).filter(function (a) { return a !== "copy_color"; }).map(function (a) {
        var info = ABILITY[a] || [a[0], a];
        return h("span", { class: "sd-ability sd-ab-" + a, title: info[1], text: info[0] });
      });
      var cost = opts.small ? null : h("div", { class: "sd-cost", "aria-hidden": "true" }, COST.map(function (t, i) {
        return c.cost[i] ? h("span", { class: "sd-cost-i sd-t-" + t, title: c.cost[i] + " " + t },
          String(c.cost[i]), h("span", { class: "sd-letter", text: LETTERS[t] })) : null;
      }));
      return h("div", {
        class: cls, "data-card": id, role: opts.item ? "listitem" : null,
        title: id + (c.kind === "points_only" ? " (points only)" : "") + (opts.copy ? " — copies " + opts.copy : "") + blind,
      }, vh(cardWords(id, c, opts) + (isNew ? " (just bought or reserved)" : "") + blind + "."),
      top, h("div", { class: "sd-abilities", "aria-hidden": "true" }, abilities), cost);
    }

    function back(level, count, words, item) {
      return h("div", { class: "sd-card sd-back sd-back-" + level, "data-level": level, role: item ? "listitem" : null },
        vh(words),
        h("span", { class: "sd-back-level", "aria-hidden": "true", text: ["", "I", "II", "III"][level] }),
        count !== undefined ? h("span", { class: "sd-back-count", "aria-hidden": "true", text: String(count) }) : null,
        count === undefined ? h("span", { class: "sd-back-label", "aria-hidden": "true", text: "hidden" }) : null);
    }

    function royal(id) {
      var r = royals[id] || { points: "?", abilities: [] };
      var words = "royal card " + id + ": " + plural(r.points, "point") +
        (r.abilities || []).map(function (a) { return ", " + abilityWords(a); }).join("") + ".";
      return h("div", { class: "sd-royal" + (act.royal === id ? " sd-new" : ""), "data-royal": id, title: "royal card " + id, role: "listitem" },
        vh(words),
        h("span", { class: "sd-royal-crown", "aria-hidden": "true", text: "♛" }),
        h("span", { class: "sd-pts", "aria-hidden": "true", text: String(r.points) }),
        h("div", { class: "sd-abilities", "aria-hidden": "true" }, (r.abilities || []).map(function (a) {
          var info = ABILITY[a] || [a[0], a];
          return h("span", { class: "sd-ability", title: info[1], text: info[0] });
        })));
    }

    /* the privilege scrolls, drawn; `words` says how many */
    function privileges(n, words) {
      var items = [];
      for (var i = 0; i < n; i++) items.push(h("span", { class: "sd-privilege", title: "privilege", text: "P" }));
      return h("span", { class: "sd-privileges" }, vh(words),
        h("span", { class: "sd-privilege-row", "aria-hidden": "true" }, items.length ? items : h("span", { class: "sd-none", text: "–" })));
    }

    // -- the shared table ---------------------------------------------------
    // a real table (rows 5 to 1, columns a–e), each cell saying its token
    var rows = [];
    for (var r = 4; r >= 0; r--) {
      var cells = [h("th", { class: "sd-rank", scope: "row", text: String(r + 1) })];
      for (var col = 0; col < 5; col++) {
        var name = COLS[col] + (r + 1);
        var t = v.board[r][col];
        var hit = act.cells.indexOf(name) >= 0;
        cells.push(h("td", {
          class: "sd-cell" + (hit ? " sd-hit" : ""), "data-cell": name, "data-token": t || "", title: name + (t ? ": " + t : ": empty"),
        }, t ? token(t) : null, vh(name + ": " + (t || "empty") + (hit ? ", taken this step" : ""))));
      }
      rows.push(h("tr", null, cells));
    }
    var files = [h("td", { class: "sd-rank" })];
    for (col = 0; col < 5; col++) files.push(h("th", { class: "sd-file", scope: "col", text: COLS[col] }));
    var board = h("table", { class: "sd-board" },
      h("caption", { class: "r-vh", text: "Token board, row 5 at the top, row 1 (the privileges' edge) at the bottom" }),
      h("tbody", null, rows), h("tfoot", null, h("tr", null, files)));

    var inBag = TOKENS.filter(function (t) { return v.bag[t]; });
    var bag = h("div", { class: "sd-bag", title: "tokens in the bag" }, h("span", { class: "sd-label", text: "Bag" }),
      inBag.map(function (t) { return count(t, v.bag[t]); }),
      inBag.length ? null : h("span", { class: "sd-none", text: "empty" }));

    var boardBox = h("div", { class: "sd-board-box" },
      board,
      h("div", { class: "sd-supply" },
        h("span", { class: "sd-label", text: "Privileges" }), privileges(v.privileges_supply, String(v.privileges_supply))),
      bag);

    var pyramid = h("div", { class: "sd-pyramid" });
    for (var level = 3; level >= 1; level--) {
      var size = v.deck_sizes[level - 1];
      var row = h("div", { class: "sd-row sd-level-" + level, role: "list", "aria-label": "Level " + level });
      var deck = back(level, size, "Level " + level + " deck: " + plural(size, "card") +
        (act.deck === level ? ", a card just reserved from it" : "") + ".", true);
      deck.classList.add("sd-deck");
      deck.setAttribute("data-count", String(size));
      deck.title = "level " + level + " deck: " + size + " cards";
      if (act.deck === level) deck.classList.add("sd-new");
      row.appendChild(deck);
      v.pyramid[level - 1].forEach(function (id) {
        row.appendChild(id ? card(id, { item: true })
          : h("div", { class: "sd-card sd-empty", title: "empty slot", role: "listitem" }, vh("empty slot")));
      });
      pyramid.appendChild(row);
    }
    var royalsBox = h("div", { class: "sd-royals" }, h("span", { class: "sd-label", text: "Royal cards" }),
      v.royals.length ? h("div", { class: "sd-royal-list", role: "list", "aria-label": "Royal cards" }, v.royals.map(function (id) { return royal(id); }))
        : h("span", { class: "sd-none", text: "none left" }));

    var table = h("div", { class: "sd-table" }, boardBox, h("div", { class: "sd-cards-box" }, royalsBox, pyramid));

    // -- players ------------------------------------------------------------
    function player(seat) {
      var p = v.players[seat];
      var toAct = !outcome && v.to_act.indexOf(seat) >= 0;
      var byColour = {};
      GEMS.concat(["none"]).forEach(function (c) { byColour[c] = []; });
      p.cards.forEach(function (id) {
        var c = cards[id];
        var colour = p.copies[id] || (c && c.bonus_color) || "none";
        if (!byColour[colour]) colour = "none";
        byColour[colour].push(card(id, { small: true, copy: p.copies[id] || null, item: true }));
      });
      var stacks = h("div", { class: "sd-stacks" }, GEMS.concat(["none"]).map(function (colour) {
        if (colour === "none" && !byColour.none.length) return null;
        var head = colour === "none" ? h("span", { class: "sd-stack-head", title: "cards without a colour" },
          vh("Cards without a colour:"), h("span", { "aria-hidden": "true", text: "★" }))
          : h("span", { class: "sd-stack-head", title: colour + ": bonus " + p.bonus[colour] + ", " + p.colour_points[colour] + " points" },
            vh(colour + ": bonus " + p.bonus[colour] + ", " + plural(p.colour_points[colour], "point") + (byColour[colour].length ? ";" : ".")),
            // no bonus of a colour: an outline, as a count of no tokens is
            h("span", { class: "sd-bonus-badge sd-t-" + colour + (p.bonus[colour] ? "" : " sd-zero"), "aria-hidden": "true" },
              h("span", { class: "sd-letter", text: LETTERS[colour] }), String(p.bonus[colour])),
            h("span", { class: "sd-colour-pts", "aria-hidden": "true", text: p.colour_points[colour] + "pt" }));
        return h("div", { class: "sd-stack", "data-colour": colour }, head,
          byColour[colour].length ? h("div", { class: "sd-stack-cards", role: "list" }, byColour[colour]) : null);
      }));
      var tokens = h("div", { class: "sd-tokens", title: p.token_count + " tokens (at most 10)" },
        vh("Tokens:"), TOKENS.map(function (t) { return count(t, p.tokens[t]); }),
        h("span", { class: "sd-token-total" + (p.token_count > 10 ? " sd-over" : "") },
          vh(p.token_count + " in all, at most 10."), h("span", { "aria-hidden": "true", text: p.token_count + "/10" })));
      var reserved = h("div", { class: "sd-reserved" }, h("span", { class: "sd-label", text: "Reserved" }),
        p.reserved.length ? h("div", { class: "sd-reserved-list", role: "list", "aria-label": "Reserved" }, p.reserved.map(function (rv) {
          return rv.card ? card(rv.card, { item: true, blind: rv.blind })
            : back(rv.level, undefined, "a level " + rv.level + " card reserved blind from its deck", true);
        })) : h("span", { class: "sd-none", text: "none" }));
      var rank = outcome ? outcome.ranks[seat] : null;
      var fault = ctx.forfeit(seat);
      return h("section", {
        class: "sd-player" + (toAct ? " sd-to-act" : "") + (acting === seat ? " sd-acted" : "") + (rank === 1 ? " sd-winner" : ""),
        "data-seat": seat,
      },
        h("header", { class: "sd-player-head" },
          h("h3", { class: "sd-name" }, ctx.name(seat), v.first_seat === seat
            ? h("span", { class: "sd-first", title: "plays first" }, h("span", { "aria-hidden": "true", text: "1st" }), vh("(plays first)")) : null),
          rank ? h("span", { class: "sd-rank-badge", text: rank === 1 ? "winner" : "rank " + rank }) : null,
          fault ? h("span", { class: "r-fault", title: fault.title, text: fault.text }) : null,
          toAct && !outcome && !fault ? h("span", { class: "sd-turn", text: v.phase === "main" ? "to play" : v.phase }) : null),
        h("div", { class: "sd-score" },
          h("span", { class: "sd-prestige", title: "prestige points (20 to win)" }, h("b", { text: String(p.prestige) }),
            h("span", { "aria-hidden": "true", text: " pts" }), vh(" prestige points,")),
          h("span", { class: "sd-crown-count", title: "crowns (10 to win)" },
            h("span", { "aria-hidden": "true", text: "♛ " }), h("b", { text: String(p.crowns) }), vh(" crowns,")),
          // labelled as the supply's are: bare, "–" (none) or "P P" (scrolls like pearl tokens) said nothing
          h("span", { class: "sd-player-privileges" }, h("span", { class: "sd-label", "aria-hidden": "true", text: "Privileges" }),
            privileges(p.privileges, plural(p.privileges, "privilege") + (p.royals.length ? "," : "."))),
          p.royals.length ? h("span", { class: "sd-owned-royals", role: "list", "aria-label": "Royal cards" },
            p.royals.map(function (id) { return royal(id); })) : null),
        tokens, stacks, reserved);
    }

    var players = h("div", { class: "sd-players" }, player(0), player(1));
    var status = h("p", { class: "sd-status" }, statusText(v, outcome, ctx));
    root.appendChild(h("div", { class: "sd" }, status, table, players));
  }

  function statusText(v, outcome, ctx) {
    if (outcome) {
      var winners = outcome.ranks.map(function (r, s) { return r === 1 ? ctx.name(s) : null; }).filter(Boolean);
      return (winners.length > 1 ? "Shared win: " + winners.join(" and ") : winners[0] + " wins") + " — " + ctx.words(outcome.reason) + ".";
    }
    var who = ctx.name(v.active);
    var phase = {
      main: "to play", copy: "places a copy card", match: "takes a matching token",
      steal: "steals a token", royal: "chooses a royal card", discard: "discards down to 10 tokens",
    }[v.phase] || v.phase;
    return "Turn " + v.turn + " · " + who + " " + phase + (v.play_again ? " (plays again)" : "") +
      (v.replenished ? " · board replenished this turn" : "");
  }

  /* What the action just played touched: board cells, a card id, a deck, a royal. */
  function parseAction(action) {
    var out = { cells: [], card: null, deck: null, royal: null };
    if (!action) return out;
    var words = action.split(" ");
    var verb = words[0];
    if (verb === "take" || verb === "priv" || verb === "match") out.cells = words.slice(1);
    if (verb === "reserve") {
      out.cells = [words[1]];
      if (/^deck\d$/.test(words[2])) out.deck = Number(words[2].slice(4));
      else out.card = words[2];
    }
    if (verb === "buy") out.card = words[1];
    if (verb === "royal") out.royal = words[1];
    return out;
  }

  window.GemReplay = window.GemReplay || { renderers: {} };
  window.GemReplay.renderers = window.GemReplay.renderers || {};
  window.GemReplay.renderers["splendor-duel"] = { render: render, parseAction: parseAction, letters: LETTERS };
})();
