/**
 * The admin face's message catalogue: every string its pages show, in English and French, the
 * language the user chose (the `calendar_lang` cookie: the app's selector, the pages' links), else
 * the first of the client's `Accept-Language` preferences we have.
 *
 * @example
 *   const m = messagesFor(req.headers['accept-language']); m.signIn // 'Sign in'
 */
import { pickLanguage } from '../domain/languages.js';

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
};

const CATALOGUE: Record<string, Messages> = { en, fr };

/** The languages offered, by their own names. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'fr', name: 'Français' },
];

/** The messages of the language chosen (when we have it), else of the `Accept-Language` header's first language (by q) that we have, else English. */
export function messagesFor(acceptLanguage: string | undefined, chosen?: string): Messages {
  return CATALOGUE[pickLanguage(acceptLanguage, Object.keys(CATALOGUE), 'en', chosen)]!;
}
