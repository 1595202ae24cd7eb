import HTTPTypes
import Hummingbird
import NIOCore

/// The web front's only static files, served by the host itself (no CDN): the upload script and the icon.
enum WebFrontAssets {
    /// A static file response.
    static func response(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "public, max-age=3600"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Progressive enhancement of the upload form: checks sizes before sending, sends the same form
    /// with `XMLHttpRequest` to show a progress bar, and swaps in the new listing when done. Without
    /// it the form posts normally.
    static let uploadScript = """
        (function () {
          'use strict';
          var form = document.getElementById('upload');
          if (!form || !window.XMLHttpRequest || !window.FormData) { return; }
          var input = document.getElementById('files');
          var bar = document.getElementById('upload-progress');
          var status = document.getElementById('upload-status');
          var button = document.getElementById('upload-button');
          function text(name) { return form.getAttribute('data-' + name) || ''; }
          function say(message, isError) { status.textContent = message; status.className = isError ? 'error' : ''; }
          form.addEventListener('submit', function (event) {
            event.preventDefault();
            var limit = Number(text('max-size'));
            for (var i = 0; i < input.files.length; i++) {
              if (input.files[i].size > limit) {
                say(text('too-large').replace('%@', input.files[i].name).replace('%@', text('limit')), true);
                return;
              }
            }
            var request = new XMLHttpRequest();
            request.open('POST', form.action);
            request.responseType = 'document';
            bar.hidden = false;
            bar.value = 0;
            button.disabled = true;
            say(text('uploading'), false);
            request.upload.addEventListener('progress', function (progress) {
              if (progress.lengthComputable && progress.total > 0) {
                bar.value = Math.floor(progress.loaded * 100 / progress.total);
              }
            });
            request.addEventListener('load', function () {
              button.disabled = false;
              var page = request.response;
              if (request.status >= 200 && request.status < 300 && page) {
                bar.value = 100;
                var listing = page.getElementById('listing');
                var current = document.getElementById('listing');
                if (listing && current) { current.replaceWith(document.importNode(listing, true)); }
                form.reset();
                say(text('uploaded') + ' (100%)', false);
              } else {
                var error = page && page.getElementById('error');
                say(error ? error.textContent : text('failed'), true);
              }
            });
            request.addEventListener('error', function () {
              button.disabled = false;
              say(text('failed'), true);
            });
            request.send(new FormData(form));
          });
        })();

        """

    /// A plain folder icon, so browsers do not ask for a missing `/favicon.ico`.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#0a64d8" d="M3 7h10l3 3h13v15H3z"/></svg>

        """
}
