;;; dapMode.el --- drives one `ocdb dap' session through dap-mode in Emacs batch mode -*- lexical-binding: t -*-
;;
;; Run by test/dap/emacs.test.ts as
;;   emacs --batch -l dapMode.el
;; with the current directory holding .ocdb/runs.db (the demo store), OCDB_CLI set to dist/cli.js and
;; OCDB_README_SNIPPET naming a file that holds the dap-mode block of media/docs/debugger.md as it is. Loads Debian's dap-mode, the
;; snippet, then starts "Replay agent run" with `dap-debug' and drives it with dap-mode's own commands: stop on
;; entry, step forward, step back, a breakpoint added with `dap-breakpoint-add' in the transcript buffer and
;; `dap-continue' to it, an evaluate, a run growing while it is replayed (optional, OCDB_GROWING_RUN), and
;; `dap-disconnect', a long run stopped at its end (OCDB_LONG_RUN, OCDB_LONG_RUN_END: its frames and Messages as
;; dap-mode asks for them, unpaged), then (OCDB_ATTACH_AGENT) "Attach to agent run": the next run of that agent stops on entry and
;; `dap-continue' lets it finish. Each check is printed to stdout as one JSON object {"check": ..., "value": ...}; any error
;; prints {"check": "error", ...} and exits 1.

(require 'package)
(package-initialize)
(require 'cl-lib)
(require 'json)
(require 'dap-mode)
(require 'dap-ui) ; as dap-mode's own setup loads it: exception filters live there

(defvar ocdb-stops 0 "Stopped events dap-mode has handled.")
(add-hook 'dap-stopped-hook (lambda (_session) (cl-incf ocdb-stops)))

(defun ocdb-report (check value)
  "Print CHECK with VALUE as one JSON line on stdout."
  (princ (concat (json-encode (list (cons 'check check) (cons 'value value))) "\n")))

(defun ocdb-wait (what pred &optional seconds)
  "Run the event loop until PRED holds; error naming WHAT after SECONDS (default 30)."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (error "Timed out waiting for %s" what))))

(defun ocdb-session () (dap--cur-session))

(defun ocdb-frame ()
  "The active frame of the session, once dap-mode has selected one after the latest stop."
  (dap--debug-session-active-frame (ocdb-session)))

(defun ocdb-wait-stop (n what)
  "Wait for the N-th stop and its selected frame (WHAT names the step)."
  (ocdb-wait what (lambda () (and (>= ocdb-stops n) (ocdb-frame)))))

(defun ocdb-point-line ()
  "The text of the line point is on, in the buffer dap-mode opened for the frame."
  (let* ((path (dap--get-path-for-frame (ocdb-frame)))
         (buf (and path (find-buffer-visiting path))))
    (if buf
        (with-current-buffer buf (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
      "")))

(defun ocdb-report-frame (check)
  (let ((frame (ocdb-frame)))
    (ocdb-report check (list (cons 'name (gethash "name" frame))
                             (cons 'line (gethash "line" frame))
                             (cons 'text (ocdb-point-line))))))

(condition-case err
    (progn
      (load (getenv "OCDB_README_SNIPPET") nil t)
      (ocdb-report "snippet-loaded" (if (assoc "Replay agent run" dap-debug-template-configurations) t :json-false))
      (dap-debug (copy-tree (cdr (assoc "Replay agent run" dap-debug-template-configurations))))
      (ocdb-wait-stop 1 "the entry stop")
      (ocdb-report "capabilities"
                   (list (cons 'stepBack (gethash "supportsStepBack"
                                                  (dap--debug-session-current-capabilities (ocdb-session))))))
      (ocdb-report-frame "entry")

      (setf (dap--debug-session-active-frame (ocdb-session)) nil)
      (dap-next (ocdb-session))
      (ocdb-wait-stop 2 "the stop after dap-next")
      (ocdb-report-frame "next")

      (setf (dap--debug-session-active-frame (ocdb-session)) nil)
      (ocdb-step-back) ; the documented block's command
      (ocdb-wait-stop 3 "the stop after stepBack")
      (ocdb-report-frame "stepBack")

      ;; a breakpoint on the send_email line of the transcript, set in its buffer as a user would
      (let* ((path (dap--get-path-for-frame (ocdb-frame)))
             (buf (find-file-noselect path))
             line)
        (with-current-buffer buf
          (goto-char (point-min))
          (re-search-forward "^\\[[0-9]+\\] before_tool_call · send_email")
          (setq line (line-number-at-pos))
          (dap-breakpoint-add))
        (ocdb-wait "the breakpoint to be verified"
                   (lambda ()
                     (let ((bps (gethash path (dap--debug-session-breakpoints (ocdb-session)))))
                       (and bps (eq (gethash "verified" (car bps)) t)))))
        (ocdb-report "breakpoint-set" line)
        (setf (dap--debug-session-active-frame (ocdb-session)) nil)
        (dap-continue (ocdb-session) (dap--debug-session-thread-id (ocdb-session)))
        (ocdb-wait-stop 4 "the breakpoint stop")
        (ocdb-report-frame "breakpoint"))

      (let ((body (dap-request (ocdb-session) "evaluate"
                               :expression "toolName"
                               :frameId (gethash "id" (ocdb-frame))
                               :context "repl")))
        (ocdb-report "evaluate" (gethash "result" body)))
      (let ((bad (condition-case e
                     (progn (dap-request (ocdb-session) "evaluate" :expression "[[[" :context "watch") "no error")
                   (error (error-message-string e)))))
        (ocdb-report "evaluate-error" bad))

      (let ((growing (getenv "OCDB_GROWING_RUN")))
        (when (and growing (not (string= growing "")))
          ;; the test records more of the run when OCDB_GROW_REQUEST appears (stdout is only flushed at exit)
          ;; and writes OCDB_GROWTH_FILE when it has
          (dap-disconnect (ocdb-session))
          (ocdb-wait "the first session to end" (lambda () (not (dap--session-running (ocdb-session)))))
          (let ((conf (copy-tree (cdr (assoc "Replay agent run" dap-debug-template-configurations)))))
            (plist-put conf :runId growing)
            (setq ocdb-stops 0)
            (dap-debug conf))
          (ocdb-wait-stop 1 "the entry stop of the growing run")
          (setf (dap--debug-session-active-frame (ocdb-session)) nil)
          (dap-continue (ocdb-session) (dap--debug-session-thread-id (ocdb-session)))
          (ocdb-wait-stop 2 "the end of the growing run")
          (ocdb-report-frame "growing-end")
          (write-region "" nil (getenv "OCDB_GROW_REQUEST"))
          (ocdb-wait "the run to grow" (lambda () (file-exists-p (getenv "OCDB_GROWTH_FILE"))) 60)
          (setf (dap--debug-session-active-frame (ocdb-session)) nil)
          (dap-next (ocdb-session))
          (ocdb-wait-stop 3 "the stop past the old end")
          (ocdb-report-frame "growing-next")))

      (let ((session (ocdb-session)))
        (dap-disconnect session)
        (ocdb-wait "the adapter to exit" (lambda () (not (dap--session-running session))))
        (ocdb-report "disconnected" t))

      (let ((long (getenv "OCDB_LONG_RUN")))
        (when (and long (not (string= long "")))
          ;; a long run stopped at its end (OCDB_LONG_RUN_END): dap-mode asks for every frame at the stop, and a
          ;; scope's variables as dap-ui does, without paging
          (let ((conf (copy-tree (cdr (assoc "Replay agent run" dap-debug-template-configurations)))))
            (plist-put conf :runId long)
            (plist-put conf :checkpointId (getenv "OCDB_LONG_RUN_END"))
            (setq ocdb-stops 0)
            (dap-debug conf))
          (ocdb-wait-stop 1 "the stop at the end of the long run")
          (let* ((session (ocdb-session))
                 (frames (gethash (dap--debug-session-thread-id session)
                                  (dap--debug-session-thread-stack-frames session)))
                 (scopes (gethash "scopes" (dap-request session "scopes" :frameId (gethash "id" (ocdb-frame)))))
                 (messages (cl-find "Messages" scopes :key (lambda (s) (gethash "name" s)) :test #'string=))
                 (ranges (gethash "variables"
                                  (dap-request session "variables"
                                               :variablesReference (gethash "variablesReference" messages)))))
            (ocdb-report "long-frames" (list (cons 'count (length frames))
                                             (cons 'first (gethash "name" (elt frames 0)))
                                             (cons 'last (gethash "name" (elt frames (1- (length frames)))))))
            (ocdb-report "long-messages" (mapcar (lambda (v) (gethash "name" v)) ranges))
            (dap-disconnect session)
            (ocdb-wait "the long run's adapter to exit" (lambda () (not (dap--session-running session)))))))

      (let ((agent (getenv "OCDB_ATTACH_AGENT")))
        (when (and agent (not (string= agent "")))
          ;; the documented "Attach to agent run": the test starts the agent once OCDB_ATTACH_READY exists, and
          ;; reports on OCDB_AGENT_DONE when the agent process has finished
          (let ((conf (copy-tree (cdr (assoc "Attach to agent run" dap-debug-template-configurations)))))
            (plist-put conf :agentId agent)
            (setq ocdb-stops 0)
            ;; the attach's messages go to stderr: the test prints them when this part fails
            (message "ocdb: attach begins")
            (setq dap-print-io t dap-inhibit-io nil)
            (dap-debug conf))
          (ocdb-wait "the attach session" (lambda () (and (ocdb-session) (dap--session-running (ocdb-session)))))
          (write-region "" nil (getenv "OCDB_ATTACH_READY"))
          ;; the agent is a new process: on a loaded machine it takes a while to start
          (condition-case e
              (ocdb-wait "the agent's first boundary" (lambda () (and (>= ocdb-stops 1) (ocdb-frame))) 90)
            (error
             ;; what dap-mode saw, for the failure's message
             (let ((session (ocdb-session)))
               (ocdb-report "attach-state"
                            (list (cons 'stops ocdb-stops)
                                  (cons 'running (if (dap--session-running session) t :json-false))
                                  (cons 'threadId (dap--debug-session-thread-id session))
                                  (cons 'threadStates (dap--debug-session-thread-states session))
                                  (cons 'frame (if (ocdb-frame) t :json-false)))))
             (signal (car e) (cdr e))))
          (setq dap-print-io nil)
          (ocdb-report-frame "attach-entry")
          (ocdb-report "attach-pending"
                       (let ((scopes (gethash "scopes"
                                              (dap-request (ocdb-session) "scopes"
                                                           :frameId (gethash "id" (ocdb-frame))))))
                         (gethash "name" (elt scopes 0))))
          (dap-continue (ocdb-session) (dap--debug-session-thread-id (ocdb-session)))
          (ocdb-wait "the agent to finish" (lambda () (file-exists-p (getenv "OCDB_AGENT_DONE"))) 60)
          (let ((session (ocdb-session)))
            (dap-disconnect session)
            (ocdb-wait "the attach adapter to exit" (lambda () (not (dap--session-running session))))
            (ocdb-report "attach-disconnected" t))))
      (kill-emacs 0))
  (error
   (ocdb-report "error" (error-message-string err))
   (kill-emacs 1)))
