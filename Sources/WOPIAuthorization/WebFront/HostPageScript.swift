/// The script of the host page (`/assets/host-page.js`): it posts the token form into the
/// editor's frame and answers the editor's PostMessage calls.
///
/// Messages follow Microsoft's WOPI docs, online/postmessage.rst (JSON text with `MessageId`,
/// `SendTime` and `Values`), and Collabora Online's `wsd/reference.md` ("PostMessage
/// extensions"). Every message whose origin is not exactly the editor's, or that does not come
/// from the editor's frame, is ignored; the count of those is kept in the body's
/// `data-ignored-messages` so a test can see the check at work.
/// - `App_LoadingStatus` is answered with `Host_PostmessageReady`;
/// - `UI_Close` goes back to the folder;
/// - `UI_Sharing` goes to the folder page, whose "More" panel creates share links (the page
///   CheckFileInfo names as `FileSharingUrl`);
/// - `UI_FileVersions` goes to the folder page too: the web front has no versions page of its own
///   (`wopi files history` lists them);
/// - Collabora's `UI_SaveAs` is answered with `Action_SaveAs`, naming a copy beside the file
///   (`Name (copy).ext`, in the requested format when one is given); the editor then saves it
///   with PutRelativeFile.
enum HostPageScript {
    /// The script's text.
    static let text = """
        (function () {
          'use strict';
          var body = document.body;
          var frame = document.getElementById('editor');
          var form = document.getElementById('editor-form');
          if (!body || !frame || !form) { return; }
          var editorOrigin = body.getAttribute('data-client-origin');
          var ignored = 0;
          body.setAttribute('data-ignored-messages', '0');
          function send(id, values) {
            var message = { MessageId: id, SendTime: Date.now(), Values: values || {} };
            frame.contentWindow.postMessage(JSON.stringify(message), editorOrigin);
          }
          function copyName(format) {
            var name = body.getAttribute('data-file-name') || 'Document';
            var dot = name.lastIndexOf('.');
            var stem = dot > 0 ? name.slice(0, dot) : name;
            var ext = format ? '.' + String(format).replace(/^\\./, '') : (dot > 0 ? name.slice(dot) : '');
            return stem + ' (copy)' + ext;
          }
          window.addEventListener('message', function (event) {
            if (event.origin !== editorOrigin || event.source !== frame.contentWindow) {
              ignored += 1;
              body.setAttribute('data-ignored-messages', String(ignored));
              return;
            }
            var message;
            try { message = typeof event.data === 'string' ? JSON.parse(event.data) : event.data; } catch (e) { return; }
            if (!message || typeof message.MessageId !== 'string') { return; }
            var values = message.Values || {};
            switch (message.MessageId) {
              case 'App_LoadingStatus':
                send('Host_PostmessageReady');
                break;
              case 'UI_Close':
                window.location.assign(body.getAttribute('data-folder-url'));
                break;
              case 'UI_Sharing':
              case 'UI_FileVersions':
                window.location.assign(body.getAttribute('data-folder-url'));
                break;
              case 'UI_SaveAs':
                send('Action_SaveAs', { Filename: copyName(values.format), Notify: true });
                break;
            }
          });
          form.submit();
        })();

        """
}
