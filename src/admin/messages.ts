/**
 * The admin face's message catalogue: every string its pages show, in English and French, the
 * language the user chose (the `calendar_lang` cookie: the app's selector, the pages' links), else
 * the first of the client's `Accept-Language` preferences we have.
 *
 * @example
 *   const m = messagesFor(req.headers['accept-language']); m.signIn // 'Sign in'
 */
const en = {
  lang: 'en',
  signInTitle: 'Sign in',
  signIn: 'Sign in',
  login: 'Username or e-mail address',
  password: 'Password',
  badCredentials: 'The username or password is incorrect.',
  formExpired: 'This sign-in form has expired or did not come from this site. Please sign in again.',
  language: 'Language',
  openAdmin: 'Open the admin',
  tooMany: (s: number) => `Too many failed sign-in attempts. Try again in ${s} seconds.`,
  codeTitle: 'Two-factor sign-in',
  codeHelp: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  code: 'Code',
  verify: 'Verify',
  badCode: 'The code is incorrect.',
  cancel: 'Cancel',
  accountTitle: 'Your account',
  signedInAs: (name: string, role: string) => `Signed in as ${name} (${role}).`,
  sessionsTitle: 'Your sessions',
  sessionCreated: 'Signed in',
  sessionLastUsed: 'Last used',
  sessionBrowser: 'Browser',
  sessionAddress: 'Address',
  thisSession: 'this session',
  sessionEnd: 'End',
  endSession: 'End',
  endSessionLabel: (id: string) => `End session ${id}`,
  signOut: 'Sign out',
  signOutEverywhere: 'Sign out everywhere',
  signOutEverywhereHelp: 'Ends every session of your account, this one included.',
  signedOut: 'You are signed out.',
  twoFactorTitle: 'Two-factor sign-in',
  twoFactorOff: 'Two-factor sign-in is off.',
  twoFactorOn: (left: number) => `Two-factor sign-in is on. Recovery codes left: ${left}.`,
  twoFactorRequired: 'Administrators must turn two-factor sign-in on before they can use their session.',
  turnOn: 'Turn two-factor sign-in on',
  turnOff: 'Turn two-factor sign-in off',
  turnOffHelp: 'Enter a current code to turn it off.',
  enrolHelp: 'Scan this QR code with an authenticator app (or type the secret key), then enter the code it shows to confirm.',
  secretKey: 'Secret key',
  qrLabel: 'QR code of the secret key',
  confirm: 'Confirm',
  recoveryTitle: 'Recovery codes',
  recoveryHelp: 'Each code signs you in once when you have no access to your authenticator app. Keep them somewhere safe: they are shown only now.',
  continue: 'Continue',
  skipToContent: 'Skip to content',
  errorTitle: 'Something went wrong',
  linkExpired: 'The link you followed has expired. Go back, reload the page and try again.',
  notFound: 'There is nothing at this address.',
  rememberMe: 'Remember me',
  rememberMeHelp: 'Stay signed in on this device for up to 14 days. Leave unticked on a shared computer.',
  lostPassword: 'Lost your password?',
  lostTitle: 'Lost password',
  lostHelp: 'Enter your username or e-mail address. If an account matches and has an e-mail address, a link to choose a new password is sent to it.',
  lostSend: 'Send the link',
  lostSent: 'If an account matches, a link to choose a new password has been sent to its e-mail address. Check your inbox (and your spam folder).',
  backToSignIn: 'Back to sign-in',
  setPasswordTitle: 'Choose your password',
  resetTitle: 'Choose a new password',
  setPasswordFor: (login: string) => `Account: ${login}`,
  newPassword: 'New password',
  confirmPassword: 'Repeat the password',
  passwordRules: (min: number) => `At least ${min} characters, hard to guess: a few unrelated words work well.`,
  passwordsDiffer: 'The two passwords are not the same.',
  savePassword: 'Save the password',
  passwordSet: 'Your password is saved. Sign in with it.',
  linkUsed: 'This link was used already: it works once. Sign in, or ask for a new link.',
  linkExpiredPeople: 'This link has expired. Ask for a new one: an administrator can send the invitation again, or use “Lost your password?”.',
  linkUnknown: 'This link is not valid. Check that it was copied whole, or ask for a new one.',
  linkErrorTitle: 'This link does not work',
  strengthEmpty: 'Strength: type a password',
  deviceOn: (browser: string, os: string) => `${browser} on ${os}`,
  unknownDevice: 'Unknown browser',
  strengthWords: ['Strength: very weak', 'Strength: weak', 'Strength: fair', 'Strength: strong', 'Strength: very strong'],
};

export type Messages = typeof en;

const fr: Messages = {
  lang: 'fr',
  signInTitle: 'Connexion',
  signIn: 'Se connecter',
  login: 'Identifiant ou adresse e-mail',
  password: 'Mot de passe',
  badCredentials: 'L’identifiant ou le mot de passe est incorrect.',
  formExpired: 'Ce formulaire de connexion a expiré ou ne vient pas de ce site. Veuillez vous reconnecter.',
  language: 'Langue',
  openAdmin: 'Ouvrir l’administration',
  tooMany: (s) => `Trop de tentatives de connexion échouées. Réessayez dans ${s} secondes.`,
  codeTitle: 'Connexion à deux facteurs',
  codeHelp: 'Saisissez le code à 6 chiffres de votre application d’authentification, ou l’un de vos codes de secours.',
  code: 'Code',
  verify: 'Vérifier',
  badCode: 'Le code est incorrect.',
  cancel: 'Annuler',
  accountTitle: 'Votre compte',
  signedInAs: (name, role) => `Connecté en tant que ${name} (${role}).`,
  sessionsTitle: 'Vos sessions',
  sessionCreated: 'Connexion',
  sessionLastUsed: 'Dernière utilisation',
  sessionBrowser: 'Navigateur',
  sessionAddress: 'Adresse',
  thisSession: 'cette session',
  sessionEnd: 'Terminer',
  endSession: 'Terminer',
  endSessionLabel: (id) => `Terminer la session ${id}`,
  signOut: 'Se déconnecter',
  signOutEverywhere: 'Se déconnecter partout',
  signOutEverywhereHelp: 'Met fin à toutes les sessions de votre compte, celle-ci comprise.',
  signedOut: 'Vous êtes déconnecté.',
  twoFactorTitle: 'Connexion à deux facteurs',
  twoFactorOff: 'La connexion à deux facteurs est désactivée.',
  twoFactorOn: (left) => `La connexion à deux facteurs est activée. Codes de secours restants : ${left}.`,
  twoFactorRequired: 'Les administrateurs doivent activer la connexion à deux facteurs avant de pouvoir utiliser leur session.',
  turnOn: 'Activer la connexion à deux facteurs',
  turnOff: 'Désactiver la connexion à deux facteurs',
  turnOffHelp: 'Saisissez un code actuel pour la désactiver.',
  enrolHelp: 'Scannez ce code QR avec une application d’authentification (ou saisissez la clé secrète), puis saisissez le code affiché pour confirmer.',
  secretKey: 'Clé secrète',
  qrLabel: 'Code QR de la clé secrète',
  confirm: 'Confirmer',
  recoveryTitle: 'Codes de secours',
  recoveryHelp: 'Chaque code vous connecte une fois si vous n’avez plus accès à votre application d’authentification. Conservez-les en lieu sûr : ils ne sont affichés que maintenant.',
  continue: 'Continuer',
  skipToContent: 'Aller au contenu',
  errorTitle: 'Une erreur est survenue',
  linkExpired: 'Le lien que vous avez suivi a expiré. Revenez en arrière, rechargez la page et réessayez.',
  notFound: 'Il n’y a rien à cette adresse.',
  rememberMe: 'Se souvenir de moi',
  rememberMeHelp: 'Rester connecté·e sur cet appareil jusqu’à 14 jours. Ne cochez pas sur un ordinateur partagé.',
  lostPassword: 'Mot de passe oublié ?',
  lostTitle: 'Mot de passe oublié',
  lostHelp: 'Saisissez votre identifiant ou votre adresse e-mail. Si un compte correspond et a une adresse e-mail, un lien pour choisir un nouveau mot de passe y est envoyé.',
  lostSend: 'Envoyer le lien',
  lostSent: 'Si un compte correspond, un lien pour choisir un nouveau mot de passe a été envoyé à son adresse e-mail. Consultez votre boîte de réception (et vos indésirables).',
  backToSignIn: 'Retour à la connexion',
  setPasswordTitle: 'Choisissez votre mot de passe',
  resetTitle: 'Choisissez un nouveau mot de passe',
  setPasswordFor: (login) => `Compte : ${login}`,
  newPassword: 'Nouveau mot de passe',
  confirmPassword: 'Répétez le mot de passe',
  passwordRules: (min) => `Au moins ${min} caractères, difficile à deviner : quelques mots sans rapport entre eux conviennent bien.`,
  passwordsDiffer: 'Les deux mots de passe ne sont pas identiques.',
  savePassword: 'Enregistrer le mot de passe',
  passwordSet: 'Votre mot de passe est enregistré. Connectez-vous avec.',
  linkUsed: 'Ce lien a déjà servi : il ne fonctionne qu’une fois. Connectez-vous, ou demandez un nouveau lien.',
  linkExpiredPeople: 'Ce lien a expiré. Demandez-en un nouveau : un administrateur peut renvoyer l’invitation, ou utilisez « Mot de passe oublié ? ».',
  linkUnknown: 'Ce lien n’est pas valide. Vérifiez qu’il a été copié en entier, ou demandez-en un nouveau.',
  linkErrorTitle: 'Ce lien ne fonctionne pas',
  strengthEmpty: 'Robustesse : saisissez un mot de passe',
  deviceOn: (browser, os) => `${browser} sur ${os}`,
  unknownDevice: 'Navigateur inconnu',
  strengthWords: ['Robustesse : très faible', 'Robustesse : faible', 'Robustesse : moyenne', 'Robustesse : forte', 'Robustesse : très forte'],
};

const CATALOGUE: Record<string, Messages> = { en, fr };

/** The languages offered, by their own names. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'fr', name: 'Français' },
];

/** The messages of the language chosen (when we have it), else of the `Accept-Language` header's first language (by q) that we have, else English. */
export function messagesFor(acceptLanguage: string | undefined, chosen?: string): Messages {
  if (chosen && CATALOGUE[chosen]) return CATALOGUE[chosen]!;
  if (!acceptLanguage) return en;
  const wanted = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m);
      return { lang: (tag ?? '').trim().toLowerCase().split('-')[0]!, q: q ? Number(q[1]) : 1, i };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) if (CATALOGUE[w.lang]) return CATALOGUE[w.lang]!;
  return en;
}
