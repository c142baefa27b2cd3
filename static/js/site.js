/* Gem Arena: small behaviour shared by every page. Each page works without it.
 *
 * An error summary's links point at the label of the field in error (so the
 * page scrolls to the label and its question); a click, or Enter, then gives
 * the focus to the field itself, so the user can correct it at once. */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".error-summary a[href^='#']");
    if (!link) return;
    var label = document.getElementById(link.getAttribute("href").slice(1));
    var field = label && label.htmlFor ? document.getElementById(label.htmlFor) : null;
    if (!field || typeof field.focus !== "function") return; // the link's own jump stays
    event.preventDefault();
    label.scrollIntoView({ block: "start" });
    field.focus({ preventScroll: true });
  });
})();
