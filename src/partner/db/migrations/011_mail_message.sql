-- The e-mail itself, as nodemailer's JSON transport rendered it (JSON text: from, to, subject,
-- text, html, headers…), kept with its outbox row instead of one file per e-mail: markSent stores
-- it in the same statement that marks the row sent, the dashboard shows it, and erasing a
-- candidate blanks it in the same transaction as the rest of their data. NULL until sent, for
-- e-mail sent through SMTP (not kept), and once erased. `file` stays for rows sent before this
-- migration, when the JSON transport wrote each message to a file in MAIL_DIR.
ALTER TABLE mail_outbox ADD COLUMN message TEXT;
