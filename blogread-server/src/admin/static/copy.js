// The Copy buttons of the admin pages: copy the value of the element named by data-copy.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field) return;
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          field.select();
          if (document.execCommand("copy")) done();
        });
      } else {
        field.select();
        if (document.execCommand("copy")) done();
      }
    });
  });
});
