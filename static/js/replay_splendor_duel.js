/* Splendor Duel for the replay viewer (static/js/replay.js): the token board,
 * the pyramid with its decks, the royal cards, the privileges and both
 * players, drawn from one spectator view (docs/games/splendor-duel.md).
 * Card faces come from the server's game data (GameDef.public_data()).
 *
 * Hooks: .sd-cell[data-cell="c3"] (data-token), .sd-card[data-card="L1-02"],
 * .sd-player[data-seat], .sd-deck[data-level] (data-count).
 */
(function () {
  "use strict";

  var GEMS = ["white", "blue", "green", "red", "black"];
  var TOKENS = ["white", "blue", "green", "red", "black", "pearl", "gold"];
  var COST = ["white", "blue", "green", "red", "black", "pearl"];
  var COLS = "abcde";
  var ABILITY = {
    play_again: ["↻", "play again"],
    take_token_matching_card_color: ["+1", "take a token of the card's colour from the board"],
    steal_token: ["✂", "steal a token from the opponent"],
    take_privilege: ["P", "take a privilege"],
  };

  function render(root, frame, ctx) {
    var h = ctx.h;
    var v = frame.view;
    var data = ctx.gameData || {};
    var cards = data.cards || {};
    var royals = data.royals || {};
    var acting = frame.seat;
    var act = parseAction(frame.action);

    function token(type, extra) {
      return h("span", { class: "sd-token sd-t-" + type + (extra ? " " + extra : ""), title: type, "aria-label": type });
    }

    function crown(n) {
      return h("span", { class: "sd-crowns", title: n + (n === 1 ? " crown" : " crowns") }, "♛", n > 1 ? String(n) : "");
    }

    function card(id, opts) {
      opts = opts || {};
      var c = cards[id];
      if (!c) return h("div", { class: "sd-card sd-card-unknown", "data-card": id, text: id });
      var colour = opts.copy || (c.kind === "joker" ? "joker" : c.bonus_color || "none");
      var cls = "sd-card sd-c-" + colour + (opts.copy ? " sd-copied" : "") +
        (opts.small ? " sd-small" : "") + (act.card === id ? " sd-new" : "");
      var top = h("div", { class: "sd-card-top" },
        h("span", { class: "sd-pts", text: c.points ? String(c.points) : "" }),
        c.crowns ? crown(c.crowns) : null,
        c.bonus_count ? h("span", { class: "sd-bonus sd-t-" + colour, title: "bonus: " + c.bonus_count + " " + colour },
          c.bonus_count > 1 ? "×2" : "") : null);
      // a copy card's rainbow bonus already says what its ability does
      var abilities = (c.abilities || []).filter(function (a) { return a !== "copy_color"; }).map(function (a) {
        var info = ABILITY[a] || [a[0], a];
        return h("span", { class: "sd-ability sd-ab-" + a, title: info[1], text: info[0] });
      });
      var cost = opts.small ? null : h("div", { class: "sd-cost" }, COST.map(function (t, i) {
        return c.cost[i] ? h("span", { class: "sd-cost-i sd-t-" + t, title: c.cost[i] + " " + t, text: String(c.cost[i]) }) : null;
      }));
      return h("div", {
        class: cls, "data-card": id,
        title: id + (c.kind === "points_only" ? " (points only)" : "") + (opts.copy ? " — copies " + opts.copy : ""),
      }, top, h("div", { class: "sd-abilities" }, abilities), cost);
    }

    function back(level, count, label) {
      return h("div", { class: "sd-card sd-back sd-back-" + level, "data-level": level },
        h("span", { class: "sd-back-level", text: ["", "I", "II", "III"][level] }),
        label ? h("span", { class: "sd-back-label", text: label }) : null,
        count !== undefined ? h("span", { class: "sd-back-count", text: String(count) }) : null);
    }

    function royal(id, owned) {
      var r = royals[id] || { points: "?", abilities: [] };
      return h("div", { class: "sd-royal" + (act.royal === id ? " sd-new" : ""), "data-royal": id, title: "royal card " + id },
        h("span", { class: "sd-royal-crown", text: "♛" }),
        h("span", { class: "sd-pts", text: String(r.points) }),
        h("div", { class: "sd-abilities" }, (r.abilities || []).map(function (a) {
          var info = ABILITY[a] || [a[0], a];
          return h("span", { class: "sd-ability", title: info[1], text: info[0] });
        })), owned ? null : null);
    }

    function privileges(n, label) {
      var items = [];
      for (var i = 0; i < n; i++) items.push(h("span", { class: "sd-privilege", title: "privilege", text: "P" }));
      return h("span", { class: "sd-privileges", title: label + ": " + n }, items.length ? items : h("span", { class: "sd-none", text: "–" }));
    }

    // -- the shared table ---------------------------------------------------
    var board = h("div", { class: "sd-board", role: "grid", "aria-label": "token board" });
    for (var r = 4; r >= 0; r--) {
      board.appendChild(h("span", { class: "sd-rank", text: String(r + 1) }));
      for (var col = 0; col < 5; col++) {
        var name = COLS[col] + (r + 1);
        var t = v.board[r][col];
        var hit = act.cells.indexOf(name) >= 0;
        board.appendChild(h("div", {
          class: "sd-cell" + (hit ? " sd-hit" : ""), "data-cell": name, "data-token": t || "", title: name + (t ? ": " + t : ": empty"),
        }, t ? token(t) : null));
      }
    }
    board.appendChild(h("span", { class: "sd-rank" }));
    for (col = 0; col < 5; col++) board.appendChild(h("span", { class: "sd-file", text: COLS[col] }));

    var bag = h("div", { class: "sd-bag", title: "tokens in the bag" }, h("span", { class: "sd-label", text: "Bag" }),
      TOKENS.map(function (t) { return v.bag[t] ? h("span", { class: "sd-count" }, token(t, "sd-mini"), String(v.bag[t])) : null; }),
      TOKENS.every(function (t) { return !v.bag[t]; }) ? h("span", { class: "sd-none", text: "empty" }) : null);

    var boardBox = h("div", { class: "sd-board-box" },
      board,
      h("div", { class: "sd-supply" },
        h("span", { class: "sd-label", text: "Privileges" }), privileges(v.privileges_supply, "privileges in the supply")),
      bag);

    var pyramid = h("div", { class: "sd-pyramid" });
    for (var level = 3; level >= 1; level--) {
      var row = h("div", { class: "sd-row sd-level-" + level });
      var deck = back(level, v.deck_sizes[level - 1]);
      deck.classList.add("sd-deck");
      deck.setAttribute("data-count", String(v.deck_sizes[level - 1]));
      deck.title = "level " + level + " deck: " + v.deck_sizes[level - 1] + " cards";
      if (act.deck === level) deck.classList.add("sd-new");
      row.appendChild(deck);
      v.pyramid[level - 1].forEach(function (id) {
        row.appendChild(id ? card(id) : h("div", { class: "sd-card sd-empty", title: "empty slot" }));
      });
      pyramid.appendChild(row);
    }
    var royalsBox = h("div", { class: "sd-royals" }, h("span", { class: "sd-label", text: "Royal cards" }),
      v.royals.length ? v.royals.map(function (id) { return royal(id); }) : h("span", { class: "sd-none", text: "none left" }));

    var table = h("div", { class: "sd-table" }, boardBox, h("div", { class: "sd-cards-box" }, royalsBox, pyramid));

    // -- players ------------------------------------------------------------
    function player(seat) {
      var p = v.players[seat];
      var toAct = v.to_act.indexOf(seat) >= 0;
      var byColour = {};
      GEMS.concat(["none"]).forEach(function (c) { byColour[c] = []; });
      p.cards.forEach(function (id) {
        var c = cards[id];
        var colour = p.copies[id] || (c && c.bonus_color) || "none";
        if (!byColour[colour]) colour = "none";
        byColour[colour].push(card(id, { small: true, copy: p.copies[id] || null }));
      });
      var stacks = h("div", { class: "sd-stacks" }, GEMS.concat(["none"]).map(function (colour) {
        var head = colour === "none" ? h("span", { class: "sd-stack-head", title: "cards without a colour" }, "★")
          : h("span", { class: "sd-stack-head", title: colour + ": bonus " + p.bonus[colour] + ", " + p.colour_points[colour] + " points" },
            h("span", { class: "sd-bonus-badge sd-t-" + colour, text: String(p.bonus[colour]) }),
            h("span", { class: "sd-colour-pts", text: p.colour_points[colour] + "pt" }));
        if (colour === "none" && !byColour.none.length) return null;
        return h("div", { class: "sd-stack", "data-colour": colour }, head, h("div", { class: "sd-stack-cards" }, byColour[colour]));
      }));
      var tokens = h("div", { class: "sd-tokens", title: p.token_count + " tokens (at most 10)" }, TOKENS.map(function (t) {
        return h("span", { class: "sd-count" + (p.tokens[t] ? "" : " sd-zero"), "data-token": t }, token(t), String(p.tokens[t]));
      }), h("span", { class: "sd-token-total" + (p.token_count > 10 ? " sd-over" : ""), text: p.token_count + "/10" }));
      var reserved = h("div", { class: "sd-reserved" }, h("span", { class: "sd-label", text: "Reserved" }),
        p.reserved.length ? p.reserved.map(function (rv) {
          return rv.card ? card(rv.card) : back(rv.level, undefined, "hidden");
        }) : h("span", { class: "sd-none", text: "none" }));
      var rank = v.outcome ? v.outcome.ranks[seat] : null;
      return h("section", {
        class: "sd-player" + (toAct ? " sd-to-act" : "") + (acting === seat ? " sd-acted" : "") + (rank === 1 ? " sd-winner" : ""),
        "data-seat": seat,
      },
        h("header", { class: "sd-player-head" },
          h("span", { class: "sd-name" }, ctx.name(seat), v.first_seat === seat ? h("span", { class: "sd-first", title: "plays first", text: "1st" }) : null),
          rank ? h("span", { class: "sd-rank-badge", text: rank === 1 ? "winner" : "rank " + rank }) : null,
          toAct && !v.outcome ? h("span", { class: "sd-turn", text: v.phase === "main" ? "to play" : v.phase }) : null),
        h("div", { class: "sd-score" },
          h("span", { class: "sd-prestige", title: "prestige points (20 to win)" }, h("b", { text: String(p.prestige) }), " pts"),
          h("span", { class: "sd-crown-count", title: "crowns (10 to win)" }, "♛ ", h("b", { text: String(p.crowns) })),
          privileges(p.privileges, "privileges"),
          p.royals.length ? h("span", { class: "sd-owned-royals" }, p.royals.map(function (id) { return royal(id, true); })) : null),
        tokens, stacks, reserved);
    }

    var players = h("div", { class: "sd-players" }, player(0), player(1));
    var status = h("p", { class: "sd-status" }, statusText(v, ctx));
    root.appendChild(h("div", { class: "sd" }, status, table, players));
  }

  function statusText(v, ctx) {
    if (v.outcome) {
      var winners = v.outcome.ranks.map(function (r, s) { return r === 1 ? ctx.name(s) : null; }).filter(Boolean);
      return (winners.length > 1 ? "Shared win: " + winners.join(" and ") : winners[0] + " wins") + " — " + v.outcome.reason + ".";
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
  window.GemReplay.renderers["splendor-duel"] = { render: render, parseAction: parseAction };
})();
