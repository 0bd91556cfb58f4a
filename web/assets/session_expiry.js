// A page left open longer than its sign-in lasts (GAPSWEEP_SESSION_S), or whose session was
// ended elsewhere (sign-out, a disabled user): the server answers Dash's callbacks with 401
// (web/auth.py), which Dash only logs to the console, so the page silently stops updating.
// Send the person to the sign-in page instead, with this page as where to come back to.
// Dash loads every .js in web/assets before its renderer starts, and the renderer calls
// window.fetch for each callback, so wrapping fetch here sees every callback's answer.
(function () {
  "use strict";
  var original = window.fetch;
  var leaving = false;
  window.fetch = function (input, init) {
    return original.apply(this, arguments).then(function (response) {
      var url = typeof input === "string" ? input : (input && input.url) || "";
      if (response.status === 401 && !leaving && url.indexOf("/_dash-") !== -1) {
        leaving = true;
        var here = window.location.pathname + window.location.search;
        window.location.assign("/login?next=" + encodeURIComponent(here));
      }
      return response;
    });
  };
})();
